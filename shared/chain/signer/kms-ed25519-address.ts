/**
 * The public key of an Ed25519 KMS key (key spec `ECC_NIST_EDWARDS25519`, usage `SIGN_VERIFY`), read with
 * `kms:GetPublicKey` and checked, and its Solana address (the key in base58). KmsEd25519Signer reads its key through
 * it; a Lambda that makes keys and never signs with them (the custody API) reads a new key's address with it alone,
 * without the signer or the Ed25519 curve the signer verifies its signatures with. The KMS client module is loaded
 * with the first call.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { solanaAddressFromPublicKey } from '../solana/address.js';
import { parseEd25519Spki } from './ed25519.js';

/** Kept apart from the secp256k1 signer's error so that this module does not pull ethers into a bundle. */
export class KmsEd25519SignerError extends Error {
  readonly code: 'KMS_KEY_UNSUITABLE' | 'KMS_SIGNATURE_UNUSABLE';
  constructor(code: KmsEd25519SignerError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KmsEd25519SignerError';
    this.code = code;
  }
}

/** The key's 32-byte Ed25519 public key; KmsEd25519SignerError (`KMS_KEY_UNSUITABLE`) for any other key or answer. */
export async function kmsEd25519PublicKey(client: KMSClient, keyId: string): Promise<Uint8Array> {
  const { GetPublicKeyCommand } = await import('@aws-sdk/client-kms');
  const out = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (out.KeySpec !== undefined && out.KeySpec !== 'ECC_NIST_EDWARDS25519') {
    throw new KmsEd25519SignerError('KMS_KEY_UNSUITABLE', `KMS key ${keyId} has spec ${out.KeySpec}, not ECC_NIST_EDWARDS25519`);
  }
  if (out.KeyUsage !== undefined && out.KeyUsage !== 'SIGN_VERIFY') {
    throw new KmsEd25519SignerError('KMS_KEY_UNSUITABLE', `KMS key ${keyId} has usage ${out.KeyUsage}, not SIGN_VERIFY`);
  }
  if (!out.PublicKey) throw new KmsEd25519SignerError('KMS_KEY_UNSUITABLE', `KMS returned no public key for ${keyId}`);
  try {
    return parseEd25519Spki(out.PublicKey);
  } catch (error) {
    throw new KmsEd25519SignerError('KMS_KEY_UNSUITABLE', `KMS key ${keyId}: unusable public key`, { cause: error });
  }
}

/** The key's Solana address: its public key in base58. */
export async function kmsEd25519Address(client: KMSClient, keyId: string): Promise<string> {
  return solanaAddressFromPublicKey(await kmsEd25519PublicKey(client, keyId));
}
