import { scannersRuntime } from '../../shared/runtime/scanner.js';
import { wakeableWorker } from '../../shared/runtime/worker.js';
import { runScanners, wokenNetworks } from '../../shared/usecases/scanner/run-scanners.js';

const deps = scannersRuntime();

/**
 * EventBridge, every minute: each network's scanner takes its lease and loops for most of the invocation
 * (about a block of detection lag, not a minute) while it has something to watch. Also woken by the scanner-wake
 * queue when a payment is created (the event router sends its `payment.created`): that network's scanner starts
 * at once unless a run already holds it. Leaves 15 s of the timeout unused.
 */
export const handler = wakeableWorker('chain-scanner', async (run, woken): Promise<{ passes: number; recorded: number }> => {
  const reports = await runScanners({ budgetMs: run.budgetMs(15_000, 1_000), ...(woken ? { woken: wokenNetworks(woken) } : {}) }, deps);
  return { passes: reports.length, recorded: reports.reduce((n, r) => n + r.recorded, 0) };
});
