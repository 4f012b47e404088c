/**
 * The EVM address of a KMS secp256k1 key without a chain client (an API Lambda ships no ethers): its public key
 * (`kms:GetPublicKey`, the KMS client loaded on first use), keccak-256 of the point's X ‖ Y, the last 20 bytes.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { toChecksumAddress } from '../../domain/addresses.js';
import { parseSecp256k1Spki } from './der.js';

/** The checksummed address of an uncompressed secp256k1 point (0x04 ‖ X ‖ Y). */
export function addressOfPoint(point: Uint8Array): string {
  if (point.length !== 65 || point[0] !== 4) throw new RangeError('not an uncompressed secp256k1 point');
  return toChecksumAddress(`0x${bytesToHex(keccak_256(point.subarray(1))).slice(-40)}`);
}

export async function kmsKeyAddress(keyId: string, region: string): Promise<string> {
  const { KMSClient, GetPublicKeyCommand } = await import('@aws-sdk/client-kms');
  const out = await new KMSClient({ region, maxAttempts: 3 }).send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (!out.PublicKey) throw new Error(`KMS key ${keyId}: no public key`);
  return addressOfPoint(parseSecp256k1Spki(out.PublicKey));
}
