import type { Decimal } from './money.js';

/**
 * Plans, pure (issue 30, DESIGN section 12): a plan prices one period of a subscription, `amount` in
 * `price_currency`, paid in `currency` (a pay currency code), every `interval_count` `interval`s. Its period arithmetic
 * lives here: boundaries are counted from the subscription's anchor (never from the previous boundary), so a month
 * that clamps (31 January -> 28 February) does not drag the later ones (31 March stays 31 March).
 */

export const PLAN_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type PlanInterval = (typeof PLAN_INTERVALS)[number];

/** The most periods of one interval a plan may span (a period of up to five years). */
export const MAX_INTERVAL_COUNT = { day: 1825, week: 260, month: 60, year: 5 } as const satisfies Record<PlanInterval, number>;
export const MAX_TRIAL_DAYS = 730;
export const MAX_GRACE_DAYS = 60;
/** Grace days when a plan does not say. */
export const DEFAULT_GRACE_DAYS = 3;

export interface PlanState {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly amount: Decimal;
  readonly priceCurrency: string;
  readonly currency: string;
  readonly interval: PlanInterval;
  readonly intervalCount: number;
  readonly trialDays: number;
  readonly graceDays: number;
  readonly createdAt: string;
  readonly version: number;
}

export type PlanDraft = Omit<PlanState, 'createdAt' | 'version'>;

/** A new plan (version 0 until stored). Plans are immutable once created: a price change is a new plan. */
export function openPlan(draft: PlanDraft, now: Date): PlanState {
  return { ...draft, createdAt: now.toISOString(), version: 0 };
}

const DAY_MS = 86_400_000;

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** `anchor` plus `months` calendar months (UTC), the day clamped to the target month's last day, time of day kept. */
export function addMonths(anchor: Date, months: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const year = y + Math.floor(m / 12);
  const month = ((m % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return new Date(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}

export const addDays = (at: Date, days: number): Date => new Date(at.getTime() + days * DAY_MS);

/**
 * The start of period `index` (0: the anchor) of a plan's cadence: `index x interval_count` intervals after `anchor`,
 * months and years clamped at the month's end relative to the anchor's day.
 */
export function periodBoundary(anchor: Date, plan: Pick<PlanState, 'interval' | 'intervalCount'>, index: number): Date {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`period index ${index}`);
  const n = index * plan.intervalCount;
  switch (plan.interval) {
    case 'day':
      return addDays(anchor, n);
    case 'week':
      return addDays(anchor, 7 * n);
    case 'month':
      return addMonths(anchor, n);
    case 'year':
      return addMonths(anchor, 12 * n);
  }
}

/** Period `index`: from its boundary to the next. */
export function periodOf(anchor: Date, plan: Pick<PlanState, 'interval' | 'intervalCount'>, index: number): { start: Date; end: Date } {
  return { start: periodBoundary(anchor, plan, index), end: periodBoundary(anchor, plan, index + 1) };
}
