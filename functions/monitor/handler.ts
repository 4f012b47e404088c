import { monitoringRuntime, reconcileRuntime } from '../../shared/runtime/monitoring.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import type { ReconcileReport } from '../../shared/usecases/monitoring/reconcile.js';
import { reconcileAcceptedWork } from '../../shared/usecases/monitoring/reconcile.js';
import type { StuckWorkReport } from '../../shared/usecases/monitoring/stuck-work.js';
import { reportStuckWork } from '../../shared/usecases/monitoring/stuck-work.js';

const deps = monitoringRuntime();
const reconcile = reconcileRuntime();

/**
 * EventBridge, every minute: re-drives accepted work whose message was lost and prints what stays stuck after
 * re-drives (shared/usecases/monitoring/reconcile.ts), then prints the stuck-sweep and stuck-withdrawal counts
 * (CloudWatch EMF) for every network of the catalogue, 0 included (shared/usecases/monitoring/stuck-work.ts). Both
 * run even when the other fails; the run then fails with the first error, so the Errors alarm says why.
 */
export const handler = scheduledWorker('monitor', async (): Promise<{ reconcile: ReconcileReport; stuck: StuckWorkReport }> => {
  const [reconciled, stuck] = await Promise.allSettled([reconcileAcceptedWork(reconcile), reportStuckWork(deps)]);
  if (reconciled.status === 'rejected') throw reconciled.reason;
  if (stuck.status === 'rejected') throw stuck.reason;
  return { reconcile: reconciled.value, stuck: stuck.value };
});
