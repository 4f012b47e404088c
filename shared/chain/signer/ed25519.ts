/**
 * The public key AWS KMS returns for an Ed25519 key (key spec `ECC_NIST_EDWARDS25519`): a DER
 * SubjectPublicKeyInfo as RFC 8410 defines it,
 *
 *   SEQUENCE { SEQUENCE { OID id-Ed25519 (1.3.101.112) }, BIT STRING (0x00 ‖ the 32-byte public key) }
 *
 * which has exactly one encoding (no parameters, a fixed length): 12 fixed bytes and the key. The parser takes
 * nothing else, since its answer decides which address signs transactions.
 */
import { DerError } from './der.js';

/** `30 2a 30 05 06 03 2b 65 70 03 21 00`: everything before the key. */
const ED25519_SPKI_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);
const KEY_BYTES = 32;

/** The 32-byte Ed25519 public key of a SubjectPublicKeyInfo; throws DerError on any other structure. */
export function parseEd25519Spki(spki: Uint8Array): Uint8Array {
  if (spki.length !== ED25519_SPKI_PREFIX.length + KEY_BYTES) {
    throw new DerError(`an Ed25519 SubjectPublicKeyInfo is ${ED25519_SPKI_PREFIX.length + KEY_BYTES} bytes, got ${spki.length}`);
  }
  if (!ED25519_SPKI_PREFIX.every((b, i) => spki[i] === b)) throw new DerError('not an Ed25519 SubjectPublicKeyInfo (RFC 8410)');
  return Uint8Array.from(spki.subarray(ED25519_SPKI_PREFIX.length));
}

/** Encodes a 32-byte Ed25519 public key as a SubjectPublicKeyInfo (what KMS GetPublicKey returns). */
export function encodeEd25519Spki(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== KEY_BYTES) throw new DerError(`an Ed25519 public key is ${KEY_BYTES} bytes, got ${publicKey.length}`);
  const out = new Uint8Array(ED25519_SPKI_PREFIX.length + KEY_BYTES);
  out.set(ED25519_SPKI_PREFIX);
  out.set(publicKey, ED25519_SPKI_PREFIX.length);
  return out;
}
