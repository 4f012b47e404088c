import { randomUUID } from 'node:crypto';
import { findCurrency, NETWORKS } from '../../domain/currencies.js';
import { EVENTS, routedEventsIn } from '../../domain/events.js';
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
 * recorded a deposit, or a payment that appears meanwhile, keeps the sub-minute loop. A payment created while no
 * loop runs wakes the scanner of its network at once (a woken run, `LoopOptions.woken`), which loops as a scheduled
 * run does; the next scheduled run waits for its lease (`LEASE_RETRY_MS`) and goes on from there.
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
  /**
   * A woken run (a payment just created, functions/chain-scanner): only these networks, and a network whose lease is
   * held is left to its holder, which loops while the network has something to watch. Unset: a scheduled run.
   */
  readonly woken?: readonly string[];
  /** How often a scheduled run asks again for a lease another run holds (default `LEASE_RETRY_MS`). */
  readonly leaseRetryMs?: number;
}

/**
 * A scheduled run that finds its network's lease held asks again this often while its budget lasts, and goes on
 * from the holder's last pass: the holder may be the previous run ending its minute, or a woken run that started
 * between two scheduled ones and would otherwise leave the rest of this minute unscanned.
 */
export const LEASE_RETRY_MS = 2_000;

/** A pass that recorded nothing, settled nothing and reached the tip. */
const quiet = (r: ScanReport): boolean => r.recorded === 0 && r.settled === 0 && r.behind === 0;

export async function runScanners(options: LoopOptions, deps: ScannersDeps): Promise<ScanReport[]> {
  const owner = randomUUID();
  const started = deps.clock.now().getTime();
  const elapsed = () => deps.clock.now().getTime() - started;
  const reports: ScanReport[] = [];
  const retryMs = options.leaseRetryMs ?? LEASE_RETRY_MS;
  const networks = options.woken ? deps.networks.filter((n) => options.woken?.includes(n.network)) : deps.networks;
  const acquire = async (network: string): Promise<boolean> => {
    const until = new Date(started + options.budgetMs + 30_000);
    // Woken while a run loops (the usual case when payments keep coming): a read, not a refused write.
    if (options.woken && (await deps.cursors.leaseHeld(network, deps.clock.now()))) return false;
    for (let asked = 0; ; asked++) {
      if (await deps.cursors.acquireLease(network, owner, deps.clock.now(), until)) return true;
      if (options.woken || (asked + 1) * retryMs >= options.budgetMs || elapsed() + retryMs >= options.budgetMs) return false;
      await new Promise((r) => setTimeout(r, retryMs));
    }
  };
  await Promise.all(
    networks.map(async (n) => {
      const { network } = n;
      if (!(await acquire(network))) return;
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

/**
 * The networks a woken run scans: those of the payments whose creation woke it (the routed `payment.created`
 * events of the scanner-wake queue). A message that is not such an event wakes nothing (it is not retried).
 */
export function wokenNetworks(bodies: readonly string[]): string[] {
  const networks = new Set<string>();
  for (const event of routedEventsIn(bodies, [EVENTS.paymentCreated])) {
    const network = findCurrency(event.payload.pay_currency)?.network;
    if (network) networks.add(network);
  }
  return [...networks];
}
