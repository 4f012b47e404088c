import type { Context } from 'aws-lambda';
import { scannersRuntime } from '../../shared/runtime/scanner.js';
import { runScanners } from '../../shared/usecases/scanner/run-scanners.js';

const deps = scannersRuntime();

/**
 * EventBridge, every minute: each network's scanner takes its lease and loops for most of the invocation
 * (about a block of detection lag, not a minute). Leaves 15 s of the timeout unused.
 */
export async function handler(_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<{ passes: number; recorded: number }> {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 60_000;
  const reports = await runScanners({ budgetMs: Math.max(1_000, remaining - 15_000) }, deps);
  return { passes: reports.length, recorded: reports.reduce((n, r) => n + r.recorded, 0) };
}
