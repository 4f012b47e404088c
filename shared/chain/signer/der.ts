/**
 * The two DER structures AWS KMS uses for secp256k1 keys (pure, no dependencies):
 *
 * - Sign returns an ECDSA signature `SEQUENCE { INTEGER r, INTEGER s }` (RFC 3279 Ecdsa-Sig-Value);
 * - GetPublicKey returns a SubjectPublicKeyInfo (RFC 5480):
 *     SEQUENCE { SEQUENCE { OID id-ecPublicKey, OID secp256k1 }, BIT STRING (0x00, 0x04 ‖ X ‖ Y) }.
 *
 * The parsers are strict (definite lengths, no trailing bytes, expected OIDs) because their input decides
 * which address signs transactions.
 */

/** Order of the secp256k1 group. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = SECP256K1_N >> 1n;

/** 1.2.840.10045.2.1 */
const OID_EC_PUBLIC_KEY = Uint8Array.of(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01);
/** 1.3.132.0.10 */
const OID_SECP256K1 = Uint8Array.of(0x2b, 0x81, 0x04, 0x00, 0x0a);

const TAG_INTEGER = 0x02;
const TAG_BIT_STRING = 0x03;
const TAG_OID = 0x06;
const TAG_SEQUENCE = 0x30;

export class DerError extends Error {
  readonly code = 'DER_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'DerError';
  }
}

interface Tlv {
  tag: number;
  value: Uint8Array;
  /** Offset just after this element. */
  end: number;
}

function readTlv(buf: Uint8Array, offset: number): Tlv {
  const tag = buf[offset];
  let lenByte = buf[offset + 1];
  if (tag === undefined || lenByte === undefined) throw new DerError('truncated DER element');
  let pos = offset + 2;
  let length: number;
  if (lenByte < 0x80) {
    length = lenByte;
  } else {
    const count = lenByte & 0x7f;
    if (count === 0 || count > 4) throw new DerError('unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i++) {
      lenByte = buf[pos++];
      if (lenByte === undefined) throw new DerError('truncated DER length');
      length = length * 256 + lenByte;
    }
    if (length < 0x80) throw new DerError('non-minimal DER length');
  }
  const end = pos + length;
  if (end > buf.length) throw new DerError('DER element overruns its buffer');
  return { tag, value: buf.subarray(pos, end), end };
}

function expectTag(tlv: Tlv, tag: number, what: string): Uint8Array {
  if (tlv.tag !== tag) throw new DerError(`expected ${what} (tag 0x${tag.toString(16)}), got tag 0x${tlv.tag.toString(16)}`);
  return tlv.value;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function positiveInteger(bytes: Uint8Array, what: string): bigint {
  if (bytes.length === 0) throw new DerError(`${what}: empty INTEGER`);
  const first = bytes[0] as number;
  if (first & 0x80) throw new DerError(`${what}: negative INTEGER`);
  if (first === 0 && bytes.length > 1 && !((bytes[1] as number) & 0x80)) {
    throw new DerError(`${what}: non-minimal INTEGER`);
  }
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

export interface EcdsaSignature {
  r: bigint;
  s: bigint;
}

/** Parses a DER ECDSA signature; r and s must be in [1, n-1]. */
export function parseDerSignature(der: Uint8Array): EcdsaSignature {
  const seq = readTlv(der, 0);
  if (seq.end !== der.length) throw new DerError('trailing bytes after signature');
  const body = expectTag(seq, TAG_SEQUENCE, 'SEQUENCE');
  const rTlv = readTlv(body, 0);
  const sTlv = readTlv(body, rTlv.end);
  if (sTlv.end !== body.length) throw new DerError('trailing bytes inside signature');
  const r = positiveInteger(expectTag(rTlv, TAG_INTEGER, 'INTEGER r'), 'r');
  const s = positiveInteger(expectTag(sTlv, TAG_INTEGER, 'INTEGER s'), 's');
  if (r === 0n || r >= SECP256K1_N) throw new DerError('r out of range');
  if (s === 0n || s >= SECP256K1_N) throw new DerError('s out of range');
  return { r, s };
}

function encodeLength(length: number): Uint8Array {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let l = length; l > 0; l = Math.floor(l / 256)) bytes.unshift(l & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

function tlv(tag: number, value: Uint8Array): Uint8Array {
  const len = encodeLength(value.length);
  const out = new Uint8Array(1 + len.length + value.length);
  out[0] = tag;
  out.set(len, 1);
  out.set(value, 1 + len.length);
  return out;
}

function integerBytes(v: bigint): Uint8Array {
  if (v < 0n) throw new RangeError('negative');
  let hex = v.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const raw = Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
  return (raw[0] as number) & 0x80 ? Uint8Array.of(0, ...raw) : raw;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** DER-encodes an ECDSA signature (as KMS returns it). */
export function encodeDerSignature({ r, s }: EcdsaSignature): Uint8Array {
  return tlv(TAG_SEQUENCE, concat(tlv(TAG_INTEGER, integerBytes(r)), tlv(TAG_INTEGER, integerBytes(s))));
}

/** True when s is in the upper half of the group order (rejected by Ethereum since EIP-2). */
export function isHighS(s: bigint): boolean {
  return s > HALF_N;
}

/** Returns the low-s twin of a signature: s' = n - s when s > n/2 (both verify; Ethereum accepts only low s). */
export function normaliseS(s: bigint): bigint {
  return isHighS(s) ? SECP256K1_N - s : s;
}

/**
 * Parses a secp256k1 SubjectPublicKeyInfo and returns the 65-byte uncompressed point (0x04 ‖ X ‖ Y).
 * Rejects other curves and compressed points (KMS always returns uncompressed ones).
 */
export function parseSecp256k1Spki(spki: Uint8Array): Uint8Array {
  const outer = readTlv(spki, 0);
  if (outer.end !== spki.length) throw new DerError('trailing bytes after SubjectPublicKeyInfo');
  const body = expectTag(outer, TAG_SEQUENCE, 'SEQUENCE');
  const algTlv = readTlv(body, 0);
  const keyTlv = readTlv(body, algTlv.end);
  if (keyTlv.end !== body.length) throw new DerError('trailing bytes inside SubjectPublicKeyInfo');

  const alg = expectTag(algTlv, TAG_SEQUENCE, 'AlgorithmIdentifier');
  const oid1 = readTlv(alg, 0);
  const oid2 = readTlv(alg, oid1.end);
  if (oid2.end !== alg.length) throw new DerError('unexpected AlgorithmIdentifier parameters');
  if (!equalBytes(expectTag(oid1, TAG_OID, 'OID'), OID_EC_PUBLIC_KEY)) throw new DerError('not an EC public key');
  if (!equalBytes(expectTag(oid2, TAG_OID, 'OID'), OID_SECP256K1)) throw new DerError('not a secp256k1 key');

  const bits = expectTag(keyTlv, TAG_BIT_STRING, 'BIT STRING');
  if (bits[0] !== 0) throw new DerError('BIT STRING with unused bits');
  const point = bits.subarray(1);
  if (point.length !== 65 || point[0] !== 0x04) throw new DerError('expected an uncompressed point (65 bytes, 0x04 prefix)');
  return Uint8Array.from(point);
}

/** Encodes an uncompressed secp256k1 point as a SubjectPublicKeyInfo (what KMS GetPublicKey returns). */
export function encodeSecp256k1Spki(uncompressedPoint: Uint8Array): Uint8Array {
  if (uncompressedPoint.length !== 65 || uncompressedPoint[0] !== 0x04) {
    throw new DerError('expected an uncompressed point (65 bytes, 0x04 prefix)');
  }
  const algorithm = tlv(TAG_SEQUENCE, concat(tlv(TAG_OID, OID_EC_PUBLIC_KEY), tlv(TAG_OID, OID_SECP256K1)));
  return tlv(TAG_SEQUENCE, concat(algorithm, tlv(TAG_BIT_STRING, concat(Uint8Array.of(0), uncompressedPoint))));
}
