/**
 * An ethers v6 signer whose secp256k1 key lives in AWS KMS (key spec `ECC_SECG_P256K1`, usage `SIGN_VERIFY`).
 * No private key ever leaves KMS: the signer asks KMS to sign a 32-byte digest, parses the DER signature,
 * normalises s to the lower half of the curve order (Ethereum rejects high s, KMS returns either), and finds
 * the recovery id by trying both candidates against the key's address.
 *
 * IAM: the signer needs `kms:GetPublicKey` (once, cached) and `kms:Sign` on the key.
 */
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import type { KMSClient } from '@aws-sdk/client-kms';
import {
  AbstractSigner,
  Signature,
  Transaction,
  TypedDataEncoder,
  computeAddress,
  copyRequest,
  getAddress,
  getBytes,
  hashMessage,
  hexlify,
  recoverAddress,
  resolveAddress,
  resolveProperties,
  toBeHex,
} from 'ethers';
import type { BytesLike, Provider, TransactionLike, TransactionRequest, TypedDataDomain, TypedDataField } from 'ethers';
import { normaliseS, parseDerSignature, parseSecp256k1Spki } from './der.js';

export class KmsSignerError extends Error {
  readonly code: 'KMS_KEY_UNSUITABLE' | 'KMS_SIGNATURE_UNUSABLE' | 'KMS_FROM_MISMATCH' | 'KMS_ENS_UNSUPPORTED';
  constructor(code: KmsSignerError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KmsSignerError';
    this.code = code;
  }
}

interface KeyInfo {
  address: string;
  publicKey: string;
}

export class KmsSigner extends AbstractSigner {
  readonly keyId: string;
  readonly #client: KMSClient;
  #key: Promise<KeyInfo> | undefined;

  /**
   * @param client a KMSClient created once by the caller (module scope), shared by every signer.
   * @param keyId key id, key ARN, alias name (`alias/...`) or alias ARN.
   * @param provider optional provider, for `sendTransaction` and friends.
   */
  constructor(client: KMSClient, keyId: string, provider?: Provider | null) {
    super(provider ?? null);
    this.#client = client;
    this.keyId = keyId;
  }

  /** A signer on the same key (and the same cached public key) connected to another provider. */
  connect(provider: Provider | null): KmsSigner {
    const signer = new KmsSigner(this.#client, this.keyId, provider);
    signer.#key = this.#key;
    return signer;
  }

  #keyInfo(): Promise<KeyInfo> {
    if (!this.#key) {
      const pending = this.#fetchKey();
      // A failed lookup (throttling, network) is not cached: the next call tries again.
      pending.catch(() => {
        if (this.#key === pending) this.#key = undefined;
      });
      this.#key = pending;
    }
    return this.#key;
  }

  async #fetchKey(): Promise<KeyInfo> {
    const out = await this.#client.send(new GetPublicKeyCommand({ KeyId: this.keyId }));
    if (out.KeySpec !== undefined && out.KeySpec !== 'ECC_SECG_P256K1') {
      throw new KmsSignerError('KMS_KEY_UNSUITABLE', `KMS key ${this.keyId} has spec ${out.KeySpec}, not ECC_SECG_P256K1`);
    }
    if (out.KeyUsage !== undefined && out.KeyUsage !== 'SIGN_VERIFY') {
      throw new KmsSignerError('KMS_KEY_UNSUITABLE', `KMS key ${this.keyId} has usage ${out.KeyUsage}, not SIGN_VERIFY`);
    }
    if (!out.PublicKey) throw new KmsSignerError('KMS_KEY_UNSUITABLE', `KMS returned no public key for ${this.keyId}`);
    let point: Uint8Array;
    try {
      point = parseSecp256k1Spki(out.PublicKey);
    } catch (error) {
      throw new KmsSignerError('KMS_KEY_UNSUITABLE', `KMS key ${this.keyId}: unusable public key`, { cause: error });
    }
    const publicKey = hexlify(point);
    return { address: computeAddress(publicKey), publicKey };
  }

  async getAddress(): Promise<string> {
    return (await this.#keyInfo()).address;
  }

  /** The uncompressed public key (0x04 ‖ X ‖ Y) as 0x-hex; e.g. to derive the TRON address of the same key. */
  async getPublicKey(): Promise<string> {
    return (await this.#keyInfo()).publicKey;
  }

  /**
   * Signs a 32-byte digest with KMS and returns an Ethereum signature: low s, v = 27 + recovery id.
   * Reusable for any secp256k1 digest scheme (e.g. a TRON transaction id).
   */
  async signDigest(digest: BytesLike): Promise<Signature> {
    const bytes = getBytes(digest);
    if (bytes.length !== 32) throw new TypeError(`digest must be 32 bytes, got ${bytes.length}`);
    const { address } = await this.#keyInfo();
    const out = await this.#client.send(
      new SignCommand({
        KeyId: this.keyId,
        Message: bytes,
        MessageType: 'DIGEST',
        SigningAlgorithm: 'ECDSA_SHA_256',
      }),
    );
    if (!out.Signature) throw new KmsSignerError('KMS_SIGNATURE_UNUSABLE', 'KMS returned no signature');
    let r: bigint;
    let s: bigint;
    try {
      ({ r, s } = parseDerSignature(out.Signature));
    } catch (error) {
      throw new KmsSignerError('KMS_SIGNATURE_UNUSABLE', 'KMS returned an unparsable signature', { cause: error });
    }
    s = normaliseS(s);
    const hex = hexlify(bytes);
    for (const v of [27, 28] as const) {
      const candidate = Signature.from({ r: toBeHex(r, 32), s: toBeHex(s, 32), v });
      if (recoverAddress(hex, candidate) === address) return candidate;
    }
    throw new KmsSignerError('KMS_SIGNATURE_UNUSABLE', `KMS signature does not recover to ${address} (key ${this.keyId}): wrong key or corrupted answer`);
  }

  async signTransaction(tx: TransactionRequest): Promise<string> {
    const request = copyRequest(tx);
    const { to, from } = await resolveProperties({
      to: request.to ? resolveAddress(request.to, this) : undefined,
      from: request.from ? resolveAddress(request.from, this) : undefined,
    });
    if (to != null) request.to = to;
    if (from != null) {
      const own = await this.getAddress();
      if (getAddress(from) !== own) {
        throw new KmsSignerError('KMS_FROM_MISMATCH', `transaction from ${from} but the KMS key is ${own}`);
      }
    }
    delete request.from;
    const btx = Transaction.from(request as TransactionLike<string>);
    btx.signature = await this.signDigest(btx.unsignedHash);
    return btx.serialized;
  }

  async signMessage(message: string | Uint8Array): Promise<string> {
    return (await this.signDigest(hashMessage(message))).serialized;
  }

  async signTypedData(domain: TypedDataDomain, types: Record<string, TypedDataField[]>, value: Record<string, unknown>): Promise<string> {
    const populated = await TypedDataEncoder.resolveNames(domain, types, value, async (name) => {
      const address = this.provider ? await this.provider.resolveName(name) : null;
      if (address == null) throw new KmsSignerError('KMS_ENS_UNSUPPORTED', `cannot resolve the name ${name}`);
      return address;
    });
    return (await this.signDigest(TypedDataEncoder.hash(populated.domain, types, populated.value))).serialized;
  }
}
