import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { tokenContract } from '../../shared/runtime/currencies.js';
import { withdrawalsRuntime } from '../../shared/runtime/withdrawals.js';
import { config } from '../../shared/config/config.js';
import type { BatchReport } from '../../shared/usecases/withdrawals/process.js';
import type { BatcherDeps } from '../../shared/usecases/withdrawals/ports.js';
import { runWithdrawalBatch } from '../../shared/usecases/withdrawals/process.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import { logger } from '../../shared/observability/logger.js';

const cfg = config();
const chainTx = chainTxRuntime(cfg);
const deps: BatcherDeps = {
  ...withdrawalsRuntime(cfg),
  wallet: () => chainTx.hotWallet(),
  chainTx: chainTx.deps,
  tokenContract: (code) => tokenContract(code, cfg),
  log: logger,
  ...(cfg.WITHDRAWAL_BATCH_CONTRACT ? { batchPayout: { contract: cfg.WITHDRAWAL_BATCH_CONTRACT, maxItems: cfg.WITHDRAWAL_BATCH_MAX_ITEMS } } : {}),
};

/**
 * Every minute: pending withdrawals become `processing` with a chain-tx request (the hot wallet, KMS key
 * `HOT_WALLET_KEY_ID`), or settle by themselves on the staging addresses outside production. With
 * `WITHDRAWAL_BATCH_CONTRACT`, ERC-20 ones of a currency go up to `WITHDRAWAL_BATCH_MAX_ITEMS` per transaction.
 * What a withdrawal could not do is logged by the worker's logger.
 */
export const handler = scheduledWorker('withdrawal-batcher', (_scheduled, log): Promise<BatchReport> => runWithdrawalBatch({ ...deps, log }));
