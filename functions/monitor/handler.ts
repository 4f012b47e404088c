import { config } from '../../shared/config/config.js';
import { NETWORK_CODES } from '../../shared/domain/currencies.js';
import { openPayments } from '../../shared/store/payments.js';
import { queuedWithdrawals } from '../../shared/store/withdrawals.js';
import type { StuckWorkReport } from '../../shared/usecases/monitoring/stuck-work.js';
import { reportStuckWork } from '../../shared/usecases/monitoring/stuck-work.js';

/**
 * Most processing withdrawals read per run (oldest created first). The alarm asks "any stuck?", so a backlog
 * beyond this still raises it; the count is then a lower bound.
 */
const WITHDRAWALS_READ = 1000;

/**
 * EventBridge, every minute: prints the stuck-sweep and stuck-withdrawal counts (CloudWatch EMF) for every
 * network of the catalogue, 0 included (shared/usecases/monitoring/stuck-work.ts).
 */
export async function handler(): Promise<StuckWorkReport> {
  const cfg = config();
  return reportStuckWork({
    networks: NETWORK_CODES,
    openPayments,
    processingWithdrawals: () => queuedWithdrawals('processing', WITHDRAWALS_READ),
    now: () => new Date(),
    sweepStuckMinutes: cfg.SWEEP_STUCK_MINUTES,
    withdrawalStuckMinutes: cfg.WITHDRAWAL_STUCK_MINUTES,
  });
}
