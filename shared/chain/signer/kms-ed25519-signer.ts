/**
 * A signer whose Ed25519 key lives in AWS KMS (key spec `ECC_NIST_EDWARDS25519`, usage `SIGN_VERIFY`): one per
 * Solana address. No private key ever leaves KMS: the signer reads the key's public key once (a DER
 * SubjectPublicKeyInfo, read and checked by kmsEd25519PublicKey of ./kms-ed25519-address.ts) and asks KMS to sign each message with `ED25519_SHA_512` (pure Ed25519, RFC 8032), which
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
import { KmsEd25519SignerError, kmsEd25519PublicKey } from './kms-ed25519-address.js';

export { KmsEd25519SignerError };

/** KMS allows at most this many bytes in a RAW message. */
export const KMS_MAX_RAW_MESSAGE_BYTES = 4096;

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
    return kmsEd25519PublicKey(await this.#client, this.keyId);
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
