import type { ReconcilePorts } from './ports.js';
import type { ReconcileReport } from './reconcile.js';
import { reconcileAcceptedWork } from './reconcile.js';
import type { StuckWorkDeps, StuckWorkReport } from './stuck-work.js';
import { reportStuckWork } from './stuck-work.js';

export interface MonitorReport {
  readonly reconcile: ReconcileReport;
  readonly stuck: StuckWorkReport;
}

/**
 * One run of the monitor (every minute): accepted work whose message was lost is re-driven and what stays stuck
 * after re-drives is printed (./reconcile.ts), and the stuck-sweep and stuck-withdrawal counts are printed for every
 * network of the catalogue, 0 included (./stuck-work.ts). Both run even when the other fails; the run then fails
 * with the first error, so the Errors alarm says why.
 */
export async function runMonitor(deps: { readonly reconcile: ReconcilePorts; readonly stuck: StuckWorkDeps }): Promise<MonitorReport> {
  const [reconciled, stuck] = await Promise.allSettled([reconcileAcceptedWork(deps.reconcile), reportStuckWork(deps.stuck)]);
  if (reconciled.status === 'rejected') throw reconciled.reason;
  if (stuck.status === 'rejected') throw stuck.reason;
  return { reconcile: reconciled.value, stuck: stuck.value };
}
