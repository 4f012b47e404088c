/**
 * A signer whose Ed25519 key lives in AWS KMS (key spec `ECC_NIST_EDWARDS25519`, usage `SIGN_VERIFY`): one per
 * Solana address. No private key ever leaves KMS: the signer reads the key's public key once (a DER
 * SubjectPublicKeyInfo) and asks KMS to sign each message with `ED25519_SHA_512` (pure Ed25519, RFC 8032), which
 * takes the message itself (`MessageType: RAW`, at most 4096 bytes; a Solana transaction message is at most 1232).
 * Every signature is verified against the public key before it is returned, so a wrong key or a corrupted
 * answer never reaches a chain.
 *
 * IAM: `kms:GetPublicKey` (once, cached) and `kms:Sign` on the key.
 *
 * The KMS client module is loaded with the first call, and the client may be handed in as a promise: the custody
 * API, which reads a new key's address, starts without the KMS SDK.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { ed25519 } from '@noble/curves/ed25519.js';
import { solanaAddressFromPublicKey } from '../solana/address.js';
import { parseEd25519Spki } from './ed25519.js';

/** KMS allows at most this many bytes in a RAW message. */
export const KMS_MAX_RAW_MESSAGE_BYTES = 4096;

/** Kept apart from the secp256k1 signer's error so that this module does not pull ethers into a bundle. */
export class KmsEd25519SignerError extends Error {
  readonly code: 'KMS_KEY_UNSUITABLE' | 'KMS_SIGNATURE_UNUSABLE';
  constructor(code: KmsEd25519SignerError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KmsEd25519SignerError';
    this.code = code;
  }
}

/** What signs a Solana message: its address (base58 of the 32-byte public key) and the 64-byte signature of a message. */
export interface Ed25519MessageSigner {
  getAddress(): Promise<string>;
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

export class KmsEd25519Signer implements Ed25519MessageSigner {
  readonly keyId: string;
  readonly #client: KMSClient | Promise<KMSClient>;
  #publicKey: Promise<Uint8Array> | undefined;

  /**
   * @param client a KMSClient created once by the caller (module scope), shared by every signer; or the promise of it.
   * @param keyId key id, key ARN, alias name (`alias/...`) or alias ARN.
   */
  constructor(client: KMSClient | Promise<KMSClient>, keyId: string) {
    this.#client = client;
    this.keyId = keyId;
  }

  /** The 32-byte Ed25519 public key (read from KMS once; a failed read is not cached). */
  getPublicKey(): Promise<Uint8Array> {
    if (!this.#publicKey) {
      const pending = this.#fetchPublicKey();
      pending.catch(() => {
        if (this.#publicKey === pending) this.#publicKey = undefined;
      });
      this.#publicKey = pending;
    }
    return this.#publicKey;
  }

  async #fetchPublicKey(): Promise<Uint8Array> {
    const { GetPublicKeyCommand } = await import('@aws-sdk/client-kms');
    const out = await (await this.#client).send(new GetPublicKeyCommand({ KeyId: this.keyId }));
    if (out.KeySpec !== undefined && out.KeySpec !== 'ECC_NIST_EDWARDS25519') {
      throw new KmsEd25519SignerError('KMS_KEY_UNSUITABLE', `KMS key ${this.keyId} has spec ${out.KeySpec}, not ECC_NIST_EDWARDS25519`);
    }
    if (out.KeyUsage !== undefined && out.KeyUsage !== 'SIGN_VERIFY') {
      throw new KmsEd25519SignerError('KMS_KEY_UNSUITABLE', `KMS key ${this.keyId} has usage ${out.KeyUsage}, not SIGN_VERIFY`);
    }
    if (!out.PublicKey) throw new KmsEd25519SignerError('KMS_KEY_UNSUITABLE', `KMS returned no public key for ${this.keyId}`);
    try {
      return parseEd25519Spki(out.PublicKey);
    } catch (error) {
      throw new KmsEd25519SignerError('KMS_KEY_UNSUITABLE', `KMS key ${this.keyId}: unusable public key`, { cause: error });
    }
  }

  /** The key's Solana address: the base58 public key. */
  async getAddress(): Promise<string> {
    return solanaAddressFromPublicKey(await this.getPublicKey());
  }

  /** The 64-byte Ed25519 signature of `message` (for Solana: the serialised transaction message). */
  async signMessage(message: Uint8Array): Promise<Uint8Array> {
    if (message.length === 0 || message.length > KMS_MAX_RAW_MESSAGE_BYTES) {
      throw new RangeError(`KMS signs RAW messages of 1 to ${KMS_MAX_RAW_MESSAGE_BYTES} bytes, got ${message.length}`);
    }
    const publicKey = await this.getPublicKey();
    const { SignCommand } = await import('@aws-sdk/client-kms');
    const out = await (
      await this.#client
    ).send(new SignCommand({ KeyId: this.keyId, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }));
    const signature = out.Signature;
    if (!signature || signature.length !== 64) {
      throw new KmsEd25519SignerError('KMS_SIGNATURE_UNUSABLE', `KMS returned ${signature ? `a ${signature.length}-byte` : 'no'} signature, not 64 bytes`);
    }
    let valid: boolean;
    try {
      valid = ed25519.verify(signature, message, publicKey);
    } catch {
      valid = false;
    }
    if (!valid) {
      throw new KmsEd25519SignerError('KMS_SIGNATURE_UNUSABLE', `KMS signature does not verify against key ${this.keyId}: wrong key or corrupted answer`);
    }
    return Uint8Array.from(signature);
  }
}
