/**
 * Pure rules of the operational alarms: what counts as stuck work, and when the hot wallet is too poor.
 * No I/O: the use cases in shared/usecases/monitoring read the data and print the metrics.
 */
import type { Decimal } from './money.js';
import { fromBaseUnits, toBaseUnits } from './money.js';

/** A piece of work in some status since (at least) `updatedAt`. Payments and withdrawals both fit. */
export interface StatusSince {
  readonly id: string;
  readonly network: string;
  readonly status: string;
  /** ISO time of the last change. While in the watched status nothing else should change it. */
  readonly updatedAt: string;
}

export interface StuckRule {
  /** The status work should leave by itself (`sending` for payments, `processing` for withdrawals). */
  readonly status: string;
  /** Work in that status for LONGER than this is stuck. */
  readonly thresholdMinutes: number;
}

export interface StuckCount {
  /** Stuck items per network; every network asked for is present (0 included), plus any other seen stuck. */
  readonly byNetwork: Readonly<Record<string, number>>;
  readonly total: number;
  /** Ids of the stuck items, oldest first (for the log line an operator starts from). */
  readonly ids: readonly string[];
  /** Age of the oldest stuck item in whole minutes; null when nothing is stuck. */
  readonly oldestMinutes: number | null;
}

/** Minutes since `updatedAt` (may be negative with clock skew); NaN when the time cannot be read. */
export function minutesIn(item: Pick<StatusSince, 'updatedAt'>, now: Date): number {
  return (now.getTime() - Date.parse(item.updatedAt)) / 60_000;
}

/**
 * True when the item is in the rule's status and has been for longer than the threshold. An item whose
 * `updatedAt` cannot be read counts as stuck: a record nobody can date must be looked at, never hidden.
 */
export function isStuck(item: StatusSince, rule: StuckRule, now: Date): boolean {
  if (item.status !== rule.status) return false;
  const minutes = minutesIn(item, now);
  return Number.isNaN(minutes) || minutes > rule.thresholdMinutes;
}

/**
 * Counts stuck items per network. `networks` are reported even when nothing of theirs is stuck (the value 0
 * keeps the alarm's metric alive); items of other statuses are ignored, so a caller may pass a whole queue.
 */
export function countStuck(items: readonly StatusSince[], rule: StuckRule, now: Date, networks: readonly string[] = []): StuckCount {
  if (!Number.isFinite(rule.thresholdMinutes) || rule.thresholdMinutes < 0) throw new RangeError(`Bad stuck threshold: ${rule.thresholdMinutes}`);
  const byNetwork: Record<string, number> = Object.fromEntries(networks.map((n) => [n, 0]));
  // Oldest first; undatable ones before everything (they are the oddest).
  const age = (minutes: number): number => (Number.isNaN(minutes) ? Infinity : minutes);
  const stuck = items
    .filter((item) => isStuck(item, rule, now))
    .map((item) => ({ item, minutes: minutesIn(item, now) }))
    .sort((a, b) => (age(a.minutes) === age(b.minutes) ? 0 : age(a.minutes) < age(b.minutes) ? 1 : -1));
  for (const { item } of stuck) byNetwork[item.network] = (byNetwork[item.network] ?? 0) + 1;
  const dated = stuck.filter((s) => !Number.isNaN(s.minutes)).map((s) => s.minutes);
  return {
    byNetwork,
    total: stuck.length,
    ids: stuck.map((s) => s.item.id),
    oldestMinutes: dated.length > 0 ? Math.floor(Math.max(...dated)) : null,
  };
}

export interface WalletBalanceCheck {
  /** Native balance in native units (decimal text, exact). */
  readonly balance: Decimal;
  /** The same as a number, for the metric (CloudWatch values are doubles). */
  readonly balanceValue: number;
  /** The configured minimum, or null when the network has none. */
  readonly minimum: Decimal | null;
  /** Only ever true when a minimum is configured. */
  readonly belowMinimum: boolean;
}

/**
 * The hot wallet's balance against the network's minimum (`HOT_WALLET_MIN_BALANCE`, native units). The
 * comparison is exact, in base units; a minimum with more decimals than the coin is rounded up (stricter).
 * No minimum: never below it.
 */
export function checkWalletBalance(balanceUnits: bigint, decimals: number, minimum: Decimal | null | undefined): WalletBalanceCheck {
  const balance = fromBaseUnits(balanceUnits, decimals);
  const min = minimum ?? null;
  return {
    balance,
    balanceValue: Number(balance),
    minimum: min,
    belowMinimum: min !== null && balanceUnits < toBaseUnits(min, decimals, 'up'),
  };
}
