import { withdrawalBatcherRuntime } from '../../shared/runtime/withdrawal-batcher.js';
import { config } from '../../shared/config/config.js';
import type { BatchReport } from '../../shared/usecases/withdrawals/process.js';
import { runWithdrawalBatch } from '../../shared/usecases/withdrawals/process.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';

const deps = withdrawalBatcherRuntime(config());

/**
 * Every minute: pending withdrawals become `processing` with a chain-tx request (the hot wallet, KMS key
 * `HOT_WALLET_KEY_ID`), or settle by themselves on the staging addresses outside production. With
 * `WITHDRAWAL_BATCH_CONTRACT`, ERC-20 ones of a currency go up to `WITHDRAWAL_BATCH_MAX_ITEMS` per transaction.
 * What a withdrawal could not do is logged by the worker's logger.
 */
export const handler = scheduledWorker('withdrawal-batcher', (_scheduled, log): Promise<BatchReport> => runWithdrawalBatch({ ...deps, log }));
