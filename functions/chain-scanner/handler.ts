import { scannersRuntime } from '../../shared/runtime/scanner.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import { runScanners } from '../../shared/usecases/scanner/run-scanners.js';

const deps = scannersRuntime();

/**
 * EventBridge, every minute: each network's scanner takes its lease and loops for most of the invocation
 * (about a block of detection lag, not a minute). Leaves 15 s of the timeout unused.
 */
export const handler = scheduledWorker('chain-scanner', async (scheduled): Promise<{ passes: number; recorded: number }> => {
  const reports = await runScanners({ budgetMs: scheduled.budgetMs(15_000, 1_000) }, deps);
  return { passes: reports.length, recorded: reports.reduce((n, r) => n + r.recorded, 0) };
});
