import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { payoutCalls } from '../chain/evm/batch-payout.js';
import { logger } from '../observability/logger.js';
import type { BatcherDeps } from '../usecases/withdrawals/ports.js';
import type { ChainTxRuntime } from './chain-tx.js';
import { chainTxRuntime } from './chain-tx.js';
import { tokenContract } from './currencies.js';
import { withdrawalsRuntime } from './withdrawals.js';
import { dynamoRefunds } from '../store/refunds.js';
import { dynamoWithdrawals } from '../store/withdrawals.js';
import { followingRefunds } from '../usecases/refunds/payout.js';

/**
 * The withdrawal batcher wired from configuration (its own module, so the withdrawals API Lambda, which wires
 * shared/runtime/withdrawals.ts, bundles no call-data encoder): the withdrawal use cases' ports, the hot wallet and the chain-tx
 * engine, the configured token contracts, the call data of token transfers and batch payouts (`payoutCalls`,
 * shared/chain/evm/batch-payout.ts) and, with `WITHDRAWAL_BATCH_CONTRACT`, batch payouts of up to
 * `WITHDRAWAL_BATCH_MAX_ITEMS` withdrawals; with `BTC_API_URL`, every pending BTC withdrawal of a pass in ONE transaction
 * of up to `BTC_BATCH_MAX_OUTPUTS` outputs.
 */
export function withdrawalBatcherRuntime(cfg: Config = config(), chainTx: ChainTxRuntime = chainTxRuntime(cfg)): BatcherDeps {
  return {
    ...withdrawalsRuntime(cfg),
    // A refund follows the withdrawal that pays it (dispatched in the same transaction).
    withdrawals: followingRefunds(dynamoWithdrawals, dynamoRefunds),
    wallet: () => chainTx.hotWallet(),
    chainTx: chainTx.deps,
    tokenContract: (code) => tokenContract(code, cfg),
    log: logger,
    calls: payoutCalls,
    ...(cfg.WITHDRAWAL_BATCH_CONTRACT ? { batchPayout: { contract: cfg.WITHDRAWAL_BATCH_CONTRACT, maxItems: cfg.WITHDRAWAL_BATCH_MAX_ITEMS } } : {}),
    // Bitcoin: every pending BTC withdrawal of a pass in one transaction (the engine's Bitcoin side: BTC_API_URL).
    ...(cfg.BTC_API_URL && chainTx.deps.btc ? { btcBatch: { maxOutputs: cfg.BTC_BATCH_MAX_OUTPUTS } } : {}),
  };
}
