import type { Config } from '../config/config.js';
import { kmsBtcPublicKey, readOnce } from '../chain/btc/hot-key.js';
import type { BtcNetwork } from '../chain/btc/p2wsh.js';
import { traced } from '../observability/client-tracing.js';

/**
 * Bitcoin as this deployment runs it: the network (`BTC_NETWORK`, from the stage by default: its addresses' prefix)
 * and the hot wallet's compressed public key, read from KMS once per process (`HOT_WALLET_KEY_ID`) and shared by
 * whatever needs it in the process (deposit addresses, the change address and the signer of withdrawals).
 */
export const btcNetworkOfConfig = (cfg: Config): BtcNetwork => cfg.BTC_NETWORK;

const readers = new Map<string, () => Promise<Uint8Array>>();

/** The hot wallet's compressed secp256k1 public key (33 bytes), read from KMS once per process and key. */
export function btcHotPublicKey(cfg: Config): Promise<Uint8Array> {
  const keyId = cfg.HOT_WALLET_KEY_ID;
  if (!keyId) return Promise.reject(new Error('HOT_WALLET_KEY_ID is not set: Bitcoin has no hot wallet key'));
  let read = readers.get(keyId);
  if (!read) {
    read = readOnce(async () => {
      const { KMSClient } = await import('@aws-sdk/client-kms');
      return kmsBtcPublicKey(traced(new KMSClient({ region: cfg.AWS_REGION, maxAttempts: 3 })), keyId);
    });
    readers.set(keyId, read);
  }
  return read();
}
