import { randomUUID } from 'node:crypto';
import { NETWORKS } from '../../domain/currencies.js';
import type { EvmChainPort, ScannerDeps } from './ports.js';
import type { ScanReport } from './scan.js';
import { scanOnce } from './scan.js';
import type { SweepPort } from './settle.js';

/**
 * The chain-scanner worker's loop: per network the deployment scans (an endpoint and a factory), hold the
 * network's lease and scan repeatedly for most of the invocation (EventBridge fires at most once a minute),
 * pausing about a block time between passes.
 */
export interface ScannedNetwork {
  readonly network: string;
  readonly family: 'evm' | 'tron';
  readonly url: string;
}

export interface ScannersDeps extends ScannerDeps {
  readonly networks: readonly ScannedNetwork[];
  /** The chain a network's scanner reads (closed when its loop ends). */
  chainFor(network: ScannedNetwork): EvmChainPort;
  /** How a network's confirmed payments are swept. */
  sweepFor(network: ScannedNetwork): SweepPort;
}

export interface LoopOptions {
  /** Stop starting passes after this many milliseconds. */
  readonly budgetMs: number;
  readonly pauseMs?: number;
}

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
      const chain = deps.chainFor(n);
      const scan = { ...deps, chain, sweep: deps.sweepFor(n) };
      const pause = options.pauseMs ?? Math.min(NETWORKS[network as keyof typeof NETWORKS].blockTimeMs, 2_000);
      try {
        do {
          reports.push(await scanOnce(network, scan));
          if (elapsed() + pause >= options.budgetMs) break;
          await new Promise((r) => setTimeout(r, pause));
        } while (elapsed() < options.budgetMs);
      } finally {
        chain.close();
        await deps.cursors.releaseLease(network, owner);
      }
    }),
  );
  return reports;
}
