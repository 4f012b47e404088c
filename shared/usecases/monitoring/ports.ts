import type { Clock } from '../../domain/clock.js';
import type { StatusSince } from '../../domain/monitoring.js';
import type { EmitMetrics } from '../../observability/metrics.js';

/** What the monitor reads (the gsi3 work queues) and its thresholds. */
export interface StuckWorkPorts {
  /** Networks reported (0 when nothing is stuck): the catalogue's. */
  readonly networks: readonly string[];
  /** A network's open payments (confirming, partially paid, confirmed, sending). */
  readonly openPayments: (network: string) => Promise<readonly StatusSince[]>;
  /** Withdrawals in `processing`, every network. */
  readonly processingWithdrawals: () => Promise<readonly StatusSince[]>;
  readonly clock: Clock;
  readonly sweepStuckMinutes: number;
  readonly withdrawalStuckMinutes: number;
  readonly emit?: EmitMetrics;
}
