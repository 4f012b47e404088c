import { KMSClient } from '@aws-sdk/client-kms';
import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { evmChainsOf } from '../chain/engine/evm.js';
import { evmCollector } from '../chain/evm/collector-port.js';
import { KmsSigner } from '../chain/signer/kms-signer.js';
import { systemClock } from '../domain/clock.js';
import { traced } from '../observability/client-tracing.js';
import { chainTxRequestItems } from '../store/chain-tx.js';
import { asWriteItem } from '../store/transact.js';
import type { Collector } from '../usecases/subscriptions/ports.js';
import { tokenContract } from './currencies.js';

/**
 * Pull collection's port wired from configuration (issue 30): with `SUBSCRIPTION_COLLECTOR_CONTRACT`, the collector
 * on every EVM network of `EVM_RPC_URLS` (read by eth_call; the chain id its RPC answers), the configured token
 * contracts, the hot wallet (`HOT_WALLET_KEY_ID`: the payee of the charges and their signer, its address read from
 * KMS once) and the chain-tx requests of the charges. Without the contract: undefined (pull refused).
 */
export function collectorRuntime(cfg: Config = config(), wallet?: () => Promise<{ keyId: string; address: string }>): Collector | undefined {
  const collector = cfg.SUBSCRIPTION_COLLECTOR_CONTRACT;
  if (!collector) return undefined;
  const chainOf = evmChainsOf(cfg.EVM_RPC_URLS);
  const keyId = cfg.HOT_WALLET_KEY_ID;
  let known: Promise<{ keyId: string; address: string }> | undefined;
  const kmsWallet = keyId
    ? () => {
        known ??= new KmsSigner(traced(new KMSClient({ region: cfg.AWS_REGION, maxAttempts: 3 })), keyId)
          .getAddress()
          .then((address) => ({ keyId, address }))
          .catch((error: unknown) => {
            known = undefined;
            throw error;
          });
        return known;
      }
    : null;
  // `wallet`: another signer's address (tests drive the hot wallet as a local chain's unlocked account).
  const hotWallet = wallet ?? kmsWallet;
  return evmCollector({
    collector,
    tokenContract: (currency) => tokenContract(currency, cfg),
    chainId: async (network) => (cfg.EVM_RPC_URLS[network] ? Number(await chainOf(network).chainId()) : null),
    call: (network) => (cfg.EVM_RPC_URLS[network] ? (tx) => chainOf(network).provider.call(tx) : null),
    receiptLogs: async (network, txHash) => (await chainOf(network).receipt(txHash))?.logs ?? null,
    hotWallet,
    requestItems: (tx, announce) => chainTxRequestItems(tx, announce).map(asWriteItem),
    clock: () => systemClock.now(),
  });
}
