import { config, type Config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { NETWORK_CODES } from '../domain/currencies.js';
import { openPayments } from '../store/payments.js';
import { queuedWithdrawals } from '../store/withdrawals.js';
import type { StuckWorkPorts } from '../usecases/monitoring/ports.js';

/**
 * Most processing withdrawals read per run (oldest created first). The alarm asks "any stuck?", so a backlog
 * beyond this still raises it; the count is then a lower bound.
 */
export const WITHDRAWALS_READ = 1000;

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
