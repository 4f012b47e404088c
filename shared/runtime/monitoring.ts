import { config, type Config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { NETWORK_CODES } from '../domain/currencies.js';
import { MAX_REDRIVES } from '../domain/reconcile.js';
import { sqsQueueSender } from '../queue/sqs.js';
import { ACCEPTED_WORK_QUEUES, dynamoRedriveLog } from '../store/accepted-work.js';
import { openPayments } from '../store/payments.js';
import { queuedWithdrawals } from '../store/withdrawals.js';
import type { ReconcilePorts, StuckWorkPorts } from '../usecases/monitoring/ports.js';

/**
 * Most processing withdrawals read per run (oldest created first). The alarm asks "any stuck?", so a backlog
 * beyond this still raises it; the count is then a lower bound.
 */
export const WITHDRAWALS_READ = 1000;

/** Most overdue pieces of accepted work the reconciler reads per kind and run (oldest first; the rest next run). */
export const OVERDUE_READ = 500;

/** The monitor: every network of the catalogue, the gsi3 work queues, the configured thresholds. */
export function monitoringRuntime(cfg: Config = config()): StuckWorkPorts {
  return {
    networks: NETWORK_CODES,
    openPayments,
    processingWithdrawals: () => queuedWithdrawals('processing', WITHDRAWALS_READ),
    clock: systemClock,
    sweepStuckMinutes: cfg.SWEEP_STUCK_MINUTES,
    withdrawalStuckMinutes: cfg.WITHDRAWAL_STUCK_MINUTES,
  };
}

/** The monitor's reconciler: the accepted-work queues (gsi3), the re-drive records, SQS, `REDRIVE_AFTER_MINUTES`. */
export function reconcileRuntime(cfg: Config = config()): ReconcilePorts {
  return {
    queues: ACCEPTED_WORK_QUEUES,
    redrives: dynamoRedriveLog,
    sender: sqsQueueSender,
    clock: systemClock,
    rule: { afterMinutes: cfg.REDRIVE_AFTER_MINUTES, maxRedrives: MAX_REDRIVES },
    readLimit: OVERDUE_READ,
  };
}
