import { generateKeyPairSync } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  DerError,
  SECP256K1_N,
  encodeDerSignature,
  encodeSecp256k1Spki,
  isHighS,
  normaliseS,
  parseDerSignature,
  parseSecp256k1Spki,
} from '../../../shared/chain/signer/der.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
const big = (b: Uint8Array): bigint => BigInt(`0x${hex(b)}`);

describe('parseDerSignature', () => {
  it('reads r and s of signatures made by an independent implementation (noble, DER)', () => {
    for (let i = 0; i < 20; i++) {
      const sk = secp256k1.utils.randomSecretKey();
      const digest = secp256k1.utils.randomSecretKey(); // any 32 bytes
      const der = secp256k1.sign(digest, sk, { prehash: false, lowS: false, format: 'der' });
      const compact = secp256k1.Signature.fromBytes(der, 'der').toBytes('compact');
      const { r, s } = parseDerSignature(der);
      expect(r).toBe(big(compact.subarray(0, 32)));
      expect(s).toBe(big(compact.subarray(32)));
      expect(hex(encodeDerSignature({ r, s }))).toBe(hex(der));
    }
  });

  it('handles the 0x00 padding of integers with the top bit set', () => {
    const r = 0x80n << 248n; // top bit set: 33-byte INTEGER
    const s = 0x7fn; // 1-byte INTEGER
    const der = encodeDerSignature({ r, s });
    expect(hex(der)).toBe(`3026022100${'80'}${'00'.repeat(31)}02017f`);
    expect(parseDerSignature(der)).toEqual({ r, s });
  });

  it.each([
    ['trailing bytes', '3006020101020101' + '00'],
    ['wrong outer tag', '3106020101020101'],
    ['wrong integer tag', '3006030101020101'],
    ['negative r', '3006020181020101'],
    ['non-minimal r', '300702020001020101'],
    ['zero s', '3006020101020100'],
    ['truncated', '30060201010201'],
    ['length overrun', '3009020101020101'],
    ['non-minimal length', '308106020101020101'],
  ])('rejects %s', (_name, der) => {
    expect(() => parseDerSignature(fromHex(der))).toThrow(DerError);
  });

  it('rejects r >= n', () => {
    expect(() => parseDerSignature(encodeDerSignature({ r: SECP256K1_N, s: 1n }))).toThrow(/r out of range/);
  });
});

describe('normaliseS', () => {
  it('maps high s to n - s and keeps low s; both halves verify, only the low one is canonical', () => {
    const sk = secp256k1.utils.randomSecretKey();
    const pub = secp256k1.getPublicKey(sk, false);
    const digest = secp256k1.utils.randomSecretKey();
    const low = secp256k1.Signature.fromBytes(secp256k1.sign(digest, sk, { prehash: false }), 'compact');
    expect(isHighS(low.s)).toBe(false);
    expect(normaliseS(low.s)).toBe(low.s);

    const highS = SECP256K1_N - low.s;
    expect(isHighS(highS)).toBe(true);
    expect(normaliseS(highS)).toBe(low.s);
    const highDer = encodeDerSignature({ r: low.r, s: highS });
    expect(secp256k1.verify(highDer, digest, pub, { prehash: false, lowS: false, format: 'der' })).toBe(true);
    expect(secp256k1.verify(highDer, digest, pub, { prehash: false, lowS: true, format: 'der' })).toBe(false);
  });

  it('treats n/2 as low and n/2 + 1 as high', () => {
    const half = SECP256K1_N >> 1n;
    expect(isHighS(half)).toBe(false);
    expect(isHighS(half + 1n)).toBe(true);
  });
});

describe('SubjectPublicKeyInfo', () => {
  it('parses the SPKI of a secp256k1 key exported by OpenSSL (node:crypto)', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const spki = new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }));
    const d = privateKey.export({ format: 'jwk' }).d as string;
    const expected = secp256k1.getPublicKey(Uint8Array.from(Buffer.from(d, 'base64url')), false);
    expect(hex(parseSecp256k1Spki(spki))).toBe(hex(expected));
    expect(hex(encodeSecp256k1Spki(expected))).toBe(hex(spki));
  });

  it('has the standard 23-byte secp256k1 header', () => {
    const point = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false);
    const spki = encodeSecp256k1Spki(point);
    expect(spki).toHaveLength(88);
    expect(hex(spki.subarray(0, 23))).toBe('3056301006072a8648ce3d020106052b8104000a034200');
  });

  it('rejects other curves, compressed points and trailing bytes', () => {
    const p256 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'der' });
    expect(() => parseSecp256k1Spki(new Uint8Array(p256))).toThrow(/secp256k1/);

    const compressed = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({
      type: 'spki',
      format: 'der',
    });
    const good = new Uint8Array(compressed);
    expect(() => parseSecp256k1Spki(Uint8Array.of(...good, 0))).toThrow(DerError);

    const point = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true); // 33-byte compressed
    const header = fromHex('3036301006072a8648ce3d020106052b8104000a032200');
    expect(() => parseSecp256k1Spki(Uint8Array.of(...header, ...point))).toThrow(/uncompressed/);
  });
});
