/**
 * The Solana address of an Ed25519 KMS key (key spec `ECC_NIST_EDWARDS25519`, usage `SIGN_VERIFY`): its public key,
 * read once with `kms:GetPublicKey` and checked as KmsEd25519Signer checks it, in base58. For a Lambda that makes
 * keys and never signs with them (the custody API): it needs neither the signer nor the Ed25519 curve the signer
 * verifies its signatures with. The KMS client module is loaded with the first call.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { solanaAddressFromPublicKey } from '../solana/address.js';
import { parseEd25519Spki } from './ed25519.js';

export async function kmsEd25519Address(client: KMSClient, keyId: string): Promise<string> {
  const { GetPublicKeyCommand } = await import('@aws-sdk/client-kms');
  const out = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (out.KeySpec !== undefined && out.KeySpec !== 'ECC_NIST_EDWARDS25519')
    throw new Error(`KMS key ${keyId} has spec ${out.KeySpec}, not ECC_NIST_EDWARDS25519`);
  if (out.KeyUsage !== undefined && out.KeyUsage !== 'SIGN_VERIFY') throw new Error(`KMS key ${keyId} has usage ${out.KeyUsage}, not SIGN_VERIFY`);
  if (!out.PublicKey) throw new Error(`KMS returned no public key for ${keyId}`);
  return solanaAddressFromPublicKey(parseEd25519Spki(out.PublicKey));
}
