import type { AcceptedWork, AcceptedWorkKind, RedriveRecord } from '../../domain/reconcile.js';
import { nextRecord, overdueBefore, planRedrive } from '../../domain/reconcile.js';
import type { QueueMessage, QueueName } from '../../domain/queues.js';
import { emitMetrics, METRIC_NAMES, METRIC_NAMESPACES, WORK_DIMENSION } from '../../observability/metrics.js';
import { errorField, logger } from '../../observability/logger.js';
import { isFulfilled } from '../settled.js';
import type { OverdueWork, ReconcilePorts } from './ports.js';

/**
 * The reconciler (run by the monitor every minute): accepted work whose message was lost is sent again, and work a
 * re-drive did not move is counted as stuck.
 *
 * Wallet transfers (accepted), transaction exports (pending or running) and withdrawals (processing, with their chain
 * transaction's result announced) each wait in a gsi3 work queue while open, oldest first; the reconciler reads the
 * part older than the deadline (`REDRIVE_AFTER_MINUTES`), never a scan. For each piece the pure rule
 * (shared/domain/reconcile.ts `planRedrive`) decides from its last change and its re-drives so far: re-drive it (the
 * same event, same id and payload, to the same queue the event router sent it to; the consumers are idempotent on
 * the work's natural id, so a message that was not lost after all does nothing twice), wait, or count it stuck.
 * A re-drive is recorded before its message is sent, conditioned on the record read, so two runs never both send.
 *
 * `AcceptedWorkStuck` and `AcceptedWorkRedriven` are printed per kind, 0 included, so the alarm always has data; the
 * stuck ones are also logged ("accepted work stuck", their ids). A read that fails leaves its kind's values out and
 * fails the run after the rest was done.
 */

export interface ReconcileReport {
  readonly redriven: Readonly<Partial<Record<AcceptedWorkKind, number>>>;
  readonly stuck: Readonly<Partial<Record<AcceptedWorkKind, number>>>;
}

/** Re-drive records written side by side (a crash may strand hundreds of pieces at once). */
const CLAIMS_AT_ONCE = 25;

/** Ids in a log line: enough to start from, never a huge line. */
const MAX_IDS_LOGGED = 20;

export const redriveKey = (w: Pick<AcceptedWork, 'kind' | 'tenantId' | 'id'>): string => `${w.kind}:${w.tenantId}:${w.id}`;

/** Some work queues could not be read: nothing was re-driven or counted for them. */
export class ReconcileReadError extends Error {
  constructor(
    readonly unread: readonly string[],
    readonly causes: readonly unknown[],
  ) {
    super(`reconciler: could not read ${unread.join(', ')}: ${causes.map(String).join('; ')}`);
    this.name = 'ReconcileReadError';
  }
}

export async function reconcileAcceptedWork(deps: ReconcilePorts): Promise<ReconcileReport> {
  const emit = deps.emit ?? emitMetrics;
  const now = deps.clock.now();
  const before = overdueBefore(now, deps.rule);
  const reads = await Promise.allSettled(deps.queues.map((q) => q.overdue(before, deps.readLimit)));
  const unread: string[] = [];
  const causes: unknown[] = [];
  const overdue: OverdueWork[] = [];
  const kinds: AcceptedWorkKind[] = [];
  reads.forEach((read, i) => {
    const kind = deps.queues[i]?.kind;
    if (kind === undefined) return;
    if (isFulfilled(read)) {
      kinds.push(kind);
      overdue.push(...read.value);
    } else {
      unread.push(kind);
      causes.push(read.reason);
    }
  });

  const records = overdue.length > 0 ? await deps.redrives.get(overdue) : new Map<string, RedriveRecord>();
  const redriven = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<AcceptedWorkKind, number>;
  const stuck = Object.fromEntries(kinds.map((k) => [k, [] as string[]])) as Record<AcceptedWorkKind, string[]>;
  const outgoing = new Map<QueueName, { work: OverdueWork; message: QueueMessage }[]>();
  // One message per event in a run: the items of one batch payout share their chain transaction's result.
  const sent = new Set<string>();
  const due: { work: OverdueWork; record: RedriveRecord | null }[] = [];
  for (const work of overdue) {
    const record = records.get(redriveKey(work)) ?? null;
    const plan = planRedrive(work, record, deps.rule, now);
    if (plan.stuck) stuck[work.kind].push(`${work.tenantId}:${work.id}`);
    if (plan.redrive) due.push({ work, record });
  }
  // Each re-drive is recorded before it is sent (a lost race: another run sends it), CLAIMS_AT_ONCE side by side.
  const claimed: OverdueWork[] = [];
  for (let i = 0; i < due.length; i += CLAIMS_AT_ONCE) {
    const chunk = due.slice(i, i + CLAIMS_AT_ONCE);
    const won = await Promise.all(chunk.map(({ work, record }) => deps.redrives.claim(work, record, nextRecord(work, record, now))));
    claimed.push(...chunk.filter((_, j) => won[j]).map(({ work }) => work));
  }
  for (const work of claimed) {
    redriven[work.kind]++;
    if (sent.has(`${work.message.queue}:${work.message.eventId}`)) continue;
    sent.add(`${work.message.queue}:${work.message.eventId}`);
    const list = outgoing.get(work.message.queue) ?? [];
    list.push({
      work,
      message: {
        id: `m${list.length}`,
        body: work.message.body,
        attributes: { event_type: work.message.eventType, tenant_id: work.tenantId, event_id: work.message.eventId, redrive: 'true' },
      },
    });
    outgoing.set(work.message.queue, list);
  }

  for (const [queue, list] of outgoing) {
    let failed: string[];
    try {
      failed = await deps.sender.sendBatch(
        queue,
        list.map((l) => l.message),
      );
    } catch (error) {
      logger.error('reconciler: re-drive not sent', { queue, error: errorField(error) });
      failed = list.map((l) => l.message.id);
    }
    // Recorded but not sent: the next re-drive comes a deadline later (and the work counts as stuck then).
    for (const id of failed) {
      const lost = list.find((l) => l.message.id === id)?.work;
      if (lost) logger.error('reconciler: re-drive refused by the queue', { queue, kind: lost.kind, tenant_id: lost.tenantId, id: lost.id });
    }
  }

  for (const kind of kinds) {
    emit(METRIC_NAMESPACES.operations, { [WORK_DIMENSION]: kind }, [
      { name: METRIC_NAMES.acceptedWorkStuck, value: stuck[kind].length, aggregate: true },
      { name: METRIC_NAMES.acceptedWorkRedriven, value: redriven[kind], aggregate: true },
    ]);
  }
  const redrivenTotal = kinds.reduce((n, k) => n + redriven[k], 0);
  if (redrivenTotal > 0) logger.info('accepted work re-driven', { ...redriven, redrive_after_minutes: deps.rule.afterMinutes });
  if (kinds.some((k) => stuck[k].length > 0)) {
    // One plain line the local stack's console shows as it is (no CloudWatch there), as the monitor's "stuck work".
    console.warn(
      JSON.stringify({
        level: 'warn',
        msg: 'accepted work stuck',
        redrive_after_minutes: deps.rule.afterMinutes,
        ...Object.fromEntries(kinds.filter((k) => stuck[k].length > 0).map((k) => [k, { stuck: stuck[k].length, ids: stuck[k].slice(0, MAX_IDS_LOGGED) }])),
      }),
    );
  }
  if (unread.length > 0) throw new ReconcileReadError(unread, causes);
  return {
    redriven,
    stuck: Object.fromEntries(kinds.map((k) => [k, stuck[k].length])),
  };
}
