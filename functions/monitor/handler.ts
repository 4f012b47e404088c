import { monitoringRuntime, reconcileRuntime } from '../../shared/runtime/monitoring.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import { runMonitor } from '../../shared/usecases/monitoring/monitor.js';

const deps = { reconcile: reconcileRuntime(), stuck: monitoringRuntime() };

/** EventBridge, every minute: one run of the monitor (shared/usecases/monitoring/monitor.ts). */
export const handler = scheduledWorker('monitor', () => runMonitor(deps));
