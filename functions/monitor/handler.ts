import { monitoringRuntime } from '../../shared/runtime/monitoring.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import type { StuckWorkReport } from '../../shared/usecases/monitoring/stuck-work.js';
import { reportStuckWork } from '../../shared/usecases/monitoring/stuck-work.js';

const deps = monitoringRuntime();

/**
 * EventBridge, every minute: prints the stuck-sweep and stuck-withdrawal counts (CloudWatch EMF) for every
 * network of the catalogue, 0 included (shared/usecases/monitoring/stuck-work.ts).
 */
export const handler = scheduledWorker('monitor', (): Promise<StuckWorkReport> => reportStuckWork(deps));
