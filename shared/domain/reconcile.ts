/**
 * Pure rules of the reconciler (shared/usecases/monitoring/reconcile.ts): when accepted work whose message was lost
 * is sent again, and when it counts as stuck. No I/O.
 *
 * Work is accepted in one transaction with the event its worker consumes (shared/store/outbox.ts); the event router
 * sends that event to a queue. A crash can lose the message (or its processing) after the outbox item was routed,
 * and nothing would move the work again. So work still open longer than its deadline is re-driven: the same message
 * is sent again (the consumers are idempotent on the work's natural id), at most once per deadline, at most
 * MAX_REDRIVES times. Work that a re-drive did not move within the deadline is stuck: the monitor counts it and the
 * alarm fires.
 */

/** What the reconciler re-drives: each kind has its own work queue (gsi3) and its own consumer. */
export const ACCEPTED_WORK_KINDS = ['wallet_transfer', 'transaction_export', 'withdrawal', 'webhook_redelivery'] as const;
export type AcceptedWorkKind = (typeof ACCEPTED_WORK_KINDS)[number];

/** One piece of accepted work not yet done. */
export interface AcceptedWork {
  readonly kind: AcceptedWorkKind;
  readonly tenantId: string;
  readonly id: string;
  readonly status: string;
  /** ISO time of its last change: work that moved is not overdue, whatever its age. */
  readonly updatedAt: string;
}

/** The re-drives of one piece of work so far (the reconciler's own record, kept beside it). */
export interface RedriveRecord {
  readonly count: number;
  /** ISO time of the last re-drive. */
  readonly lastAt: string;
}

export interface RedriveRule {
  /** Work not changed for LONGER than this is re-driven; a re-drive that did not move it within as long is stuck. */
  readonly afterMinutes: number;
  /** Re-drives of one piece of work before the reconciler leaves it to an operator (still counted as stuck). */
  readonly maxRedrives: number;
}

/** After three re-drives more would not help: the consumer refuses it, or its dead-letter queue holds it. */
export const MAX_REDRIVES = 3;

export interface RedrivePlan {
  /** Send its message again now. */
  readonly redrive: boolean;
  /** Re-driven already, and still not moved a deadline later: counted, logged, alarmed. */
  readonly stuck: boolean;
}

const minutesSince = (at: string, now: Date): number => (now.getTime() - Date.parse(at)) / 60_000;

function checkRule(rule: RedriveRule): void {
  if (!Number.isFinite(rule.afterMinutes) || rule.afterMinutes <= 0) throw new RangeError(`Bad re-drive deadline: ${rule.afterMinutes}`);
  if (!Number.isSafeInteger(rule.maxRedrives) || rule.maxRedrives < 1) throw new RangeError(`Bad re-drive count: ${rule.maxRedrives}`);
}

/**
 * The latest `updatedAt` of overdue work at `now` (ISO): work queues sorted by creation time are read up to it (work
 * created later cannot be overdue; work created earlier may have moved since, which `planRedrive` checks).
 */
export function overdueBefore(now: Date, rule: RedriveRule): string {
  checkRule(rule);
  return new Date(now.getTime() - rule.afterMinutes * 60_000).toISOString();
}

/** Whether the work has not changed for longer than the deadline (undatable work is overdue: it must be looked at). */
export function isOverdue(work: Pick<AcceptedWork, 'updatedAt'>, rule: RedriveRule, now: Date): boolean {
  checkRule(rule);
  const minutes = minutesSince(work.updatedAt, now);
  return Number.isNaN(minutes) || minutes > rule.afterMinutes;
}

/**
 * What to do with one piece of open work at `now`, given its re-drives so far:
 * - not overdue: nothing (its own message is still on its way);
 * - overdue, never re-driven (or only before its last change: an earlier episode): re-drive;
 * - re-driven within the deadline: wait for that re-drive;
 * - re-driven longer ago than the deadline and still not moved: stuck, and re-driven again while re-drives remain.
 */
export function planRedrive(work: Pick<AcceptedWork, 'updatedAt'>, record: RedriveRecord | null, rule: RedriveRule, now: Date): RedrivePlan {
  if (!isOverdue(work, rule, now)) return { redrive: false, stuck: false };
  const current = record !== null && !(Date.parse(record.lastAt) < Date.parse(work.updatedAt)) ? record : null;
  if (current === null) return { redrive: true, stuck: false };
  const sinceLast = minutesSince(current.lastAt, now);
  if (!Number.isNaN(sinceLast) && sinceLast <= rule.afterMinutes) return { redrive: false, stuck: false };
  return { redrive: current.count < rule.maxRedrives, stuck: true };
}

/** The record after a re-drive at `now` (a record of an earlier episode starts over). */
export function nextRecord(work: Pick<AcceptedWork, 'updatedAt'>, record: RedriveRecord | null, now: Date): RedriveRecord {
  const current = record !== null && !(Date.parse(record.lastAt) < Date.parse(work.updatedAt)) ? record : null;
  return { count: (current?.count ?? 0) + 1, lastAt: now.toISOString() };
}
