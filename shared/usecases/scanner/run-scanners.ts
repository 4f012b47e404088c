import { randomUUID } from 'node:crypto';
import { NETWORKS } from '../../domain/currencies.js';
import { emitMetrics, METRIC_NAMES, METRIC_NAMESPACES, NETWORK_DIMENSION } from '../../observability/metrics.js';
import type { EmitMetrics } from '../../observability/metrics.js';
import type { SweepPort } from '../payments/ports.js';
import type { DepositSource } from '../deposits/ports.js';
import type { ScannerDeps, ScanReport } from './scan.js';
import { DEFAULT_MEMPOOL_BUDGET, DEFAULT_MEMPOOL_REFRESH_MS, MempoolRotation } from './mempool-rotation.js';
import { scanOnce } from './scan.js';

/**
 * The chain-scanner worker's loop: per network the deployment scans (an endpoint and a factory), hold the
 * network's lease and scan repeatedly for most of the invocation (EventBridge fires at most once a minute),
 * pausing about a block time between passes, while the network has something to watch (`watching`). A network
 * with nothing waiting, open or confirming gets ONE pass a run: every block is still read (a late deposit to an
 * expired payment's address, a custody deposit: found within the minute), but the loop does not spin; a pass that
 * recorded a deposit, or a payment that appears meanwhile, keeps (or, next run, starts) the sub-minute loop.
 */
export interface ScannedNetwork {
  readonly network: string;
  /** The chain family (shared/domain/currencies.ts), whose adapter reads the network. */
  readonly family: string;
  readonly url: string;
}

export interface ScannersDeps extends ScannerDeps {
  readonly networks: readonly ScannedNetwork[];
  /** The deposits of a network's new blocks, its family's adapter (closed when its loop ends). */
  sourceFor(network: ScannedNetwork): DepositSource;
  /** How a network's confirmed payments are swept. */
  sweepFor(network: ScannedNetwork): SweepPort;
  /** Mempool lookups per pass on a UTXO network (default `DEFAULT_MEMPOOL_BUDGET`). */
  readonly mempoolBudget?: number;
  /** Where each network's lag goes at the end of its loop (default: EMF lines, shared/observability/metrics.ts). */
  readonly emit?: EmitMetrics;
  /**
   * Whether the network has something to watch closely: a payment waiting or open on it, a custody deposit still
   * confirming (a few single-item queries). Without it, a loop scans for its whole budget (as every network did).
   */
  watching?(network: string): Promise<boolean>;
}

export interface LoopOptions {
  /** Stop starting passes after this many milliseconds. */
  readonly budgetMs: number;
  readonly pauseMs?: number;
}

/** A pass that recorded nothing, settled nothing and reached the tip. */
const quiet = (r: ScanReport): boolean => r.recorded === 0 && r.settled === 0 && r.behind === 0;

export async function runScanners(options: LoopOptions, deps: ScannersDeps): Promise<ScanReport[]> {
  const owner = randomUUID();
  const started = deps.clock.now().getTime();
  const elapsed = () => deps.clock.now().getTime() - started;
  const reports: ScanReport[] = [];
  await Promise.all(
    deps.networks.map(async (n) => {
      const { network } = n;
      const now = deps.clock.now();
      if (!(await deps.cursors.acquireLease(network, owner, now, new Date(now.getTime() + options.budgetMs + 30_000)))) return;
      const source = deps.sourceFor(n);
      // One rotation per network loop: its passes share the mempool budget, the longest unchecked payment first.
      const mempoolRotation = new MempoolRotation(deps.mempoolBudget ?? DEFAULT_MEMPOOL_BUDGET, DEFAULT_MEMPOOL_REFRESH_MS);
      const scan = { ...deps, source, sweep: deps.sweepFor(n), mempoolRotation };
      const pause = options.pauseMs ?? Math.min(NETWORKS[network as keyof typeof NETWORKS].blockTimeMs, 2_000);
      try {
        let last: ScanReport | undefined;
        do {
          last = await scanOnce(network, scan);
          reports.push(last);
          if (elapsed() + pause >= options.budgetMs) break;
          // The question's time is taken off the pause: a network being watched loses none to it.
          const asked = Date.now();
          if (quiet(last) && deps.watching && !(await deps.watching(network))) break;
          await new Promise((r) => setTimeout(r, Math.max(0, pause - (Date.now() - asked))));
        } while (elapsed() < options.budgetMs);
        // One value per network and run (not per pass): where the cursor stands when the run ends; only when it is
        // behind the tip (nothing alarms on it: a caught-up network prints no line and bills no metric that month).
        if (last.behind > 0)
          (deps.emit ?? emitMetrics)(METRIC_NAMESPACES.scanner, { [NETWORK_DIMENSION]: network }, [
            { name: METRIC_NAMES.scannerBlocksBehind, value: last.behind },
          ]);
      } finally {
        source.close();
        await deps.cursors.releaseLease(network, owner);
      }
    }),
  );
  return reports;
}
