import { config } from '../../shared/config/config.js';
import { solanaPollerRuntime } from '../../shared/runtime/custody-solana.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import { runSolanaPoller } from '../../shared/usecases/custody/solana-poller.js';

const cfg = config();
const deps = solanaPollerRuntime(cfg);

/**
 * EventBridge, every minute: custody's SOL deposits. Holds the `SOL` lease and polls every custody SOL address's
 * token account history every CUSTODY_SOLANA_POLL_SECONDS for most of the invocation (like the chain scanner),
 * leaving 15 s of the timeout unused. Does nothing where Solana is not configured.
 */
export const handler = scheduledWorker('custody-solana', async (scheduled): Promise<{ passes: number; recorded: number; credited: number }> => {
  if (!deps) return { passes: 0, recorded: 0, credited: 0 };
  return runSolanaPoller({ budgetMs: scheduled.budgetMs(15_000, 1_000), pauseMs: cfg.CUSTODY_SOLANA_POLL_SECONDS * 1000 }, deps);
});
