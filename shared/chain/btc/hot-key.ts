/**
 * The hot wallet's secp256k1 public key as Bitcoin scripts use it: compressed (33 bytes, 02/03 ‖ X), read from KMS
 * with `kms:GetPublicKey` (key spec `ECC_SECG_P256K1`, usage `SIGN_VERIFY`). Every deposit address's witness script
 * ends in it (shared/chain/btc/p2wsh.ts). The KMS client module is loaded with the first call.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { parseSecp256k1Spki } from '../signer/der.js';

export class BtcHotKeyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BtcHotKeyError';
  }
}

/** The compressed form (SEC1) of an uncompressed secp256k1 point `04 ‖ X ‖ Y`: `02 ‖ X` for an even Y, else `03 ‖ X`. */
export function compressPoint(uncompressed: Uint8Array): Uint8Array {
  if (uncompressed.length !== 65 || uncompressed[0] !== 0x04) throw new BtcHotKeyError('Expected an uncompressed point (65 bytes, 0x04 first)');
  const out = new Uint8Array(33);
  out[0] = ((uncompressed[64] as number) & 1) === 1 ? 0x03 : 0x02;
  out.set(uncompressed.subarray(1, 33), 1);
  return out;
}

/** The KMS key's compressed public key; BtcHotKeyError for a key of another spec or usage, or an unusable answer. */
export async function kmsBtcPublicKey(client: KMSClient, keyId: string): Promise<Uint8Array> {
  const { GetPublicKeyCommand } = await import('@aws-sdk/client-kms');
  const out = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (out.KeySpec !== undefined && out.KeySpec !== 'ECC_SECG_P256K1') throw new BtcHotKeyError(`KMS key ${keyId} has spec ${out.KeySpec}, not ECC_SECG_P256K1`);
  if (out.KeyUsage !== undefined && out.KeyUsage !== 'SIGN_VERIFY') throw new BtcHotKeyError(`KMS key ${keyId} has usage ${out.KeyUsage}, not SIGN_VERIFY`);
  if (!out.PublicKey) throw new BtcHotKeyError(`KMS returned no public key for ${keyId}`);
  try {
    return compressPoint(parseSecp256k1Spki(out.PublicKey));
  } catch (error) {
    throw new BtcHotKeyError(`KMS key ${keyId}: unusable public key`, { cause: error });
  }
}

/** `read` once: its answer kept for the process, a failure (throttling, network) forgotten so the next call retries. */
export function readOnce<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (!pending) {
      const attempt = read();
      pending = attempt;
      attempt.catch(() => {
        if (pending === attempt) pending = undefined;
      });
    }
    return pending;
  };
}
