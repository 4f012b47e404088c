/**
 * Bitcoin signatures from the hot wallet's KMS secp256k1 key (`ECC_SECG_P256K1`): the key never leaves KMS.
 *
 * - `publicKey()`: the 33-byte compressed key, from GetPublicKey's SubjectPublicKeyInfo (asked once, cached; a
 *   failed lookup is asked again next time);
 * - `signDigest(digest)`: KMS Sign over the 32-byte BIP143 sighash as a DIGEST (ECDSA_SHA_256), the DER signature
 *   parsed, its s normalised to the low half (BIP62/BIP146: nodes refuse high s), re-encoded as strict DER, and
 *   the sighash-type byte appended: what a witness carries. Each signature is verified against the public key
 *   before it is returned, so a wrong key or a corrupted answer never reaches the chain.
 *
 * `calls` counts KMS Sign calls (the bench reports them per batch: one per input). IAM: `kms:GetPublicKey`,
 * `kms:Sign` on the key.
 */
import { SignCommand } from '@aws-sdk/client-kms';
import type { KMSClient } from '@aws-sdk/client-kms';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { BtcHotKeyError, kmsBtcPublicKey, readOnce } from '../btc/hot-key.js';
import { encodeDerSignature, normaliseS, parseDerSignature } from './der.js';

/** SIGHASH_ALL: the signature commits to every input and output. */
export const SIGHASH_ALL = 0x01;

export class KmsBtcSignerError extends Error {
  readonly code: 'KMS_KEY_UNSUITABLE' | 'KMS_SIGNATURE_UNUSABLE';
  constructor(code: KmsBtcSignerError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KmsBtcSignerError';
    this.code = code;
  }
}

/** What the BTC transaction builder needs of a signer (shared/chain/btc/transaction.ts). */
export interface BtcDigestSigner {
  /** The compressed secp256k1 public key (33 bytes). */
  publicKey(): Promise<Uint8Array>;
  /** A witness signature over a 32-byte sighash: strict DER, low s, then the sighash-type byte. */
  signDigest(digest: Uint8Array, sighashType?: number): Promise<Uint8Array>;
}

export class KmsBtcSigner implements BtcDigestSigner {
  readonly keyId: string;
  readonly #kms: KMSClient;
  readonly #key: () => Promise<Uint8Array>;
  /** KMS Sign calls made by this signer. */
  calls = 0;

  constructor(kms: KMSClient, keyId: string) {
    this.#kms = kms;
    this.keyId = keyId;
    this.#key = readOnce(() => this.#fetchKey());
  }

  publicKey(): Promise<Uint8Array> {
    return this.#key();
  }

  async #fetchKey(): Promise<Uint8Array> {
    try {
      return await kmsBtcPublicKey(this.#kms, this.keyId);
    } catch (error) {
      if (error instanceof BtcHotKeyError) throw new KmsBtcSignerError('KMS_KEY_UNSUITABLE', error.message, { cause: error });
      throw error;
    }
  }

  async signDigest(digest: Uint8Array, sighashType: number = SIGHASH_ALL): Promise<Uint8Array> {
    if (digest.length !== 32) throw new RangeError(`A sighash is 32 bytes, not ${digest.length}`);
    if (!Number.isInteger(sighashType) || sighashType < 0 || sighashType > 0xff) throw new RangeError(`bad sighash type ${sighashType}`);
    const publicKey = await this.publicKey();
    this.calls++;
    const out = await this.#kms.send(new SignCommand({ KeyId: this.keyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }));
    if (!out.Signature) throw new KmsBtcSignerError('KMS_SIGNATURE_UNUSABLE', `KMS returned no signature for ${this.keyId}`);
    let der: Uint8Array;
    try {
      const { r, s } = parseDerSignature(out.Signature);
      der = encodeDerSignature({ r, s: normaliseS(s) });
    } catch (error) {
      throw new KmsBtcSignerError('KMS_SIGNATURE_UNUSABLE', `KMS signature of ${this.keyId} is not a DER ECDSA signature`, { cause: error });
    }
    if (!secp256k1.verify(der, digest, publicKey, { prehash: false, format: 'der', lowS: true })) {
      throw new KmsBtcSignerError('KMS_SIGNATURE_UNUSABLE', `KMS signature of ${this.keyId} does not verify against its public key`);
    }
    return Uint8Array.of(...der, sighashType);
  }
}
