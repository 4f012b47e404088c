import type { StatusSince, StuckCount } from '../../domain/monitoring.js';
import { countStuck } from '../../domain/monitoring.js';
import type { MetricDatum } from '../../observability/metrics.js';
import { emitMetrics, METRIC_NAMES, METRIC_NAMESPACES, NETWORK_DIMENSION } from '../../observability/metrics.js';
import { isFulfilled } from '../settled.js';
import type { StuckWorkPorts } from './ports.js';

/**
 * monitor: counts the work that should have moved by itself and did not, and prints it as metrics the
 * alarms watch (infra/cdk/gateway-stack.ts):
 * - payments in `sending` longer than `SWEEP_STUCK_MINUTES`: the sweep's chain transaction never completed;
 * - withdrawals in `processing` longer than `WITHDRAWAL_STUCK_MINUTES`: the transfer never completed.
 * "Since" is the record's `updatedAt`, which the status change sets (a payment's late extra deposit also
 * touches it, which can only make it look younger, never older: no false alarm from that).
 *
 * Both values are printed for every network, 0 included, so the alarms always have data and a missing value
 * means the monitor itself did not run. Reads go to the gsi3 work queues (a network's open payments, the
 * processing withdrawals), never a scan.
 */

export type StuckWorkDeps = StuckWorkPorts;

export interface StuckWorkReport {
  /** Null only with no networks to read (a failed read throws instead of returning). */
  readonly sweeps: StuckCount | null;
  readonly withdrawals: StuckCount | null;
}

export const SWEEP_STATUS = 'sending';
export const WITHDRAWAL_STATUS = 'processing';

/** Ids in the log line: enough to start from, never a huge line. */
const MAX_IDS_LOGGED = 20;

/** Some reads failed (`payments:<network>`, `withdrawals`): no value was printed for them. */
export class StuckWorkReadError extends Error {
  constructor(
    readonly unread: readonly string[],
    readonly causes: readonly unknown[],
  ) {
    super(`monitor: could not read ${unread.join(', ')}: ${causes.map(String).join('; ')}`);
    this.name = 'StuckWorkReadError';
  }
}

/**
 * Reads, counts and prints. A read that fails leaves its values out (the alarm then sees missing data) and,
 * after everything else was printed, fails the invocation so the monitor's Errors alarm says why.
 */
export async function reportStuckWork(deps: StuckWorkDeps): Promise<StuckWorkReport> {
  const emit = deps.emit ?? emitMetrics;
  const now = deps.clock.now();
  const [paymentReads, withdrawalRead] = await Promise.all([
    Promise.allSettled(deps.networks.map((network) => deps.openPayments(network))),
    deps.processingWithdrawals().then(
      (items) => ({ ok: true as const, items }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
  ]);

  const unread: string[] = [];
  const causes: unknown[] = [];
  const readNetworks: string[] = [];
  const payments: StatusSince[] = [];
  paymentReads.forEach((read, i) => {
    const network = deps.networks[i] ?? '';
    if (isFulfilled(read)) {
      readNetworks.push(network);
      payments.push(...read.value);
    } else {
      unread.push(`payments:${network}`);
      causes.push(read.reason);
    }
  });
  if (!withdrawalRead.ok) {
    unread.push('withdrawals');
    causes.push(withdrawalRead.error);
  }

  const sweeps = readNetworks.length > 0 ? countStuck(payments, { status: SWEEP_STATUS, thresholdMinutes: deps.sweepStuckMinutes }, now, readNetworks) : null;
  const withdrawals = withdrawalRead.ok
    ? countStuck(withdrawalRead.items, { status: WITHDRAWAL_STATUS, thresholdMinutes: deps.withdrawalStuckMinutes }, now, deps.networks)
    : null;

  const networks = [...new Set([...deps.networks, ...Object.keys(sweeps?.byNetwork ?? {}), ...Object.keys(withdrawals?.byNetwork ?? {})])];
  for (const network of networks) {
    const values: MetricDatum[] = [];
    const swept = sweeps?.byNetwork[network];
    const withdrawn = withdrawals?.byNetwork[network];
    if (swept !== undefined) values.push({ name: METRIC_NAMES.sweepsStuck, value: swept, aggregate: true });
    if (withdrawn !== undefined) values.push({ name: METRIC_NAMES.withdrawalsStuck, value: withdrawn, aggregate: true });
    emit(METRIC_NAMESPACES.operations, { [NETWORK_DIMENSION]: network }, values);
  }

  if ((sweeps?.total ?? 0) > 0 || (withdrawals?.total ?? 0) > 0) {
    console.warn(
      JSON.stringify({
        level: 'warn',
        msg: 'stuck work',
        sweeps_stuck: sweeps?.total,
        sweep_threshold_minutes: deps.sweepStuckMinutes,
        oldest_sweep_minutes: sweeps?.oldestMinutes,
        payment_ids: sweeps?.ids.slice(0, MAX_IDS_LOGGED),
        withdrawals_stuck: withdrawals?.total,
        withdrawal_threshold_minutes: deps.withdrawalStuckMinutes,
        oldest_withdrawal_minutes: withdrawals?.oldestMinutes,
        withdrawal_ids: withdrawals?.ids.slice(0, MAX_IDS_LOGGED),
      }),
    );
  }
  if (unread.length > 0) throw new StuckWorkReadError(unread, causes);
  return { sweeps, withdrawals };
}
