import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { evmChainsOf } from '../chain/engine/evm.js';
import { evmCollector } from '../chain/evm/collector-port.js';
import { systemClock } from '../domain/clock.js';
import { chainTxRequestItems, dynamoChainTxStore } from '../store/chain-tx.js';
import { pendingChargeItem, pendingCharges, takePendingCharges } from '../store/subscription-charges.js';
import { asTransactItem, asWriteItem } from '../store/transact.js';
import type { Collector, SubscriptionsDeps } from '../usecases/subscriptions/ports.js';
import { chainTxRuntime } from './chain-tx.js';
import { mandatesConfig } from './mandates.js';
import { subscriptionsRuntime } from './subscriptions.js';

/**
 * Pull collection's port wired from configuration (issue 30), for the workers (the subscription advancer, the chain
 * results): the mandates (./mandates.ts), the collector read by eth_call on each network of `EVM_RPC_URLS`, the hot
 * wallet (`HOT_WALLET_KEY_ID`) that signs the charges, the charges pending their batch and the chain-tx requests of
 * the batches (up to `SUBSCRIPTION_CHARGES_PER_BATCH` charges each). Without
 * `SUBSCRIPTION_COLLECTOR_CONTRACT`: undefined. `wallet`: another signer than the KMS key (tests drive the hot wallet
 * as a local chain's unlocked account).
 */
/** Charges in one `chargeBatch` (the gas figure of docs/subscriptions-pull.md is for 50; a transaction takes them out with the request). */
export const SUBSCRIPTION_CHARGES_PER_BATCH = 50;

export function collectorRuntime(cfg: Config = config(), wallet?: () => Promise<{ keyId: string; address: string }>): Collector | undefined {
  if (!cfg.SUBSCRIPTION_COLLECTOR_CONTRACT) return undefined;
  const chainOf = evmChainsOf(cfg.EVM_RPC_URLS);
  // The hot wallet as the chain-tx engine knows it (its KMS key's address, read once).
  const hotWallet = wallet ?? (cfg.HOT_WALLET_KEY_ID ? chainTxRuntime(cfg).hotWallet : null);
  return evmCollector({
    ...mandatesConfig(cfg, hotWallet ? async () => (await hotWallet()).address : undefined),
    call: (network) => (cfg.EVM_RPC_URLS[network] ? (tx) => chainOf(network).provider.call(tx) : null),
    receiptLogs: async (network, txHash) => (await chainOf(network).receipt(txHash))?.logs ?? null,
    hotWallet,
    requestItems: (tx, announce) => chainTxRequestItems(tx, announce).map(asWriteItem),
    request: (requestId) => dynamoChainTxStore.get(requestId),
    pending: {
      item: (charge) => asWriteItem(pendingChargeItem(charge)),
      list: pendingCharges,
      take: (charges, alsoWrite) => takePendingCharges(charges, alsoWrite.map(asTransactItem)),
    },
    maxCharges: SUBSCRIPTION_CHARGES_PER_BATCH,
    clock: () => systemClock.now(),
  });
}

/** The subscription use cases as the workers run them: with pull collection (./subscriptions.ts has the mandates only). */
export function pullSubscriptionsRuntime(cfg: Config = config(), wallet?: () => Promise<{ keyId: string; address: string }>): SubscriptionsDeps {
  const collector = collectorRuntime(cfg, wallet);
  return { ...subscriptionsRuntime(cfg), ...(collector ? { mandates: collector, collector } : {}) };
}
