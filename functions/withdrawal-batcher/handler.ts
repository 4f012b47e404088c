import { config } from '../../shared/config/config.js';
import { defaultChainTxDeps, defaultHotWallet } from '../../shared/usecases/chain-tx/runtime.js';
import { tokenContract } from '../../shared/usecases/currencies/runtime.js';
import type { BatchReport, BatcherDeps } from '../../shared/usecases/withdrawals/process.js';
import { runWithdrawalBatch } from '../../shared/usecases/withdrawals/process.js';
import { logger } from '../../shared/observability/logger.js';

/**
 * Every minute: pending withdrawals become `processing` with a chain-tx request (the hot wallet, KMS key
 * `HOT_WALLET_KEY_ID`), or settle by themselves on the staging addresses outside production.
 */
function batcherDeps(): BatcherDeps {
  const cfg = config();
  return {
    wallet: defaultHotWallet,
    chainTx: defaultChainTxDeps(),
    tokenContract: (currency) => tokenContract(currency),
    stage: cfg.STAGE,
    now: () => new Date(),
  };
}

export async function handler(): Promise<BatchReport> {
  const report = await runWithdrawalBatch(batcherDeps());
  logger.info('withdrawal batch', { ...report });
  return report;
}
