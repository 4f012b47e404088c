import { ConflictError } from './errors.js';
import type { EventDraft } from './events.js';
import { EVENTS, eventDraft } from './events.js';

/**
 * Transaction exports (spec 4.7, `POST /transactions/export/`): a job that writes the tenant's transaction history,
 * filtered, to one CSV or JSON file in S3, downloaded through a presigned URL. Pure: the job's record, its guards
 * and the one transition function; the export worker (shared/usecases/transactions/run-export.ts) commits each
 * change, conditioned on the version read.
 *
 * ```
 * (none) --open--> pending --started--> running --completed--> completed
 *                    \                    |  \---failed------> failed
 *                     \--failed--> failed  \--started (a redelivered message: the run starts over)
 * ```
 *
 * A run that dies (a timeout, an S3 or DynamoDB error) leaves the job `running`; the queue redelivers the message
 * and the next run starts the file over. After MAX_EXPORT_RUNS runs a further start fails the job instead, well
 * before the queue's own receive limit sends the message to its dead-letter queue.
 */

export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** How long an export (its job and its file) is kept: the bucket's lifecycle rule deletes files after as many days. */
export const EXPORT_RETENTION_DAYS = 7;
/** Runs of one job before a further start gives up (the transaction-exports queue receives a message 5 times). */
export const MAX_EXPORT_RUNS = 3;

/**
 * The filters of an export as applied, shown back in `filters`: the history's filters (shared/usecases/transactions/
 * ports.ts) in the interface's names. Date bounds are ISO 8601 instants, both inclusive (a date alone was widened to
 * its whole UTC day); null: no filter.
 */
export interface ExportFilters {
  readonly type: string | null;
  readonly status: string | null;
  readonly currency: string | null;
  readonly wallet_id: string | null;
  readonly date_from: string | null;
  readonly date_to: string | null;
}

export interface ExportState {
  readonly id: string;
  readonly tenantId: string;
  readonly format: ExportFormat;
  readonly filters: ExportFilters;
  readonly status: ExportStatus;
  /** Where the file is written: `exports/<tenant id>/<export id>.<csv|json>`. */
  readonly objectKey: string;
  /** Rows (transactions) and bytes of the file; 0 until completed. */
  readonly rows: number;
  readonly bytes: number;
  /** Runs started so far (a redelivered message starts another). */
  readonly runs: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  readonly failureReason: string | null;
  /** End of the retention: the job reads as not found from then on (its file is gone). */
  readonly expiresAt: string;
  readonly version: number;
}

export type ExportFact =
  | { readonly kind: 'started' }
  | { readonly kind: 'completed'; readonly rows: number; readonly bytes: number }
  | { readonly kind: 'failed'; readonly reason: string };

export interface ExportChange {
  readonly state: ExportState;
  readonly events: readonly EventDraft[];
}

export const isFinal = (e: Pick<ExportState, 'status'>): boolean => e.status === 'completed' || e.status === 'failed';
/** A pending job starts; a running one starts over (its previous run died). */
export const canStart = (e: Pick<ExportState, 'status'>): boolean => e.status === 'pending' || e.status === 'running';
export const canComplete = (e: Pick<ExportState, 'status'>): boolean => e.status === 'running';
/** Its file is written: it can be downloaded until it expires. */
export const isCompleted = (e: Pick<ExportState, 'status'>): boolean => e.status === 'completed';
export const canFail = (e: Pick<ExportState, 'status'>): boolean => !isFinal(e);

/** Whether the job is past its retention at `now` (DynamoDB TTL deletes late, so reads check it themselves). */
export const isExpired = (e: Pick<ExportState, 'expiresAt'>, now: Date): boolean => now.getTime() >= Date.parse(e.expiresAt);

export const fileExtension = (format: ExportFormat): string => format;

/** The object key of an export's file: under its tenant, named by the export id. */
export const exportObjectKey = (tenantId: string, exportId: string, format: ExportFormat): string => `exports/${tenantId}/${exportId}.${fileExtension(format)}`;

/** The file name a download suggests. */
export const exportFileName = (e: Pick<ExportState, 'id' | 'format'>): string => `transactions-${e.id}.${fileExtension(e.format)}`;

export interface ExportDraft {
  readonly id: string;
  readonly tenantId: string;
  readonly format: ExportFormat;
  readonly filters: ExportFilters;
}

/**
 * The worker's `transaction_export.requested` event of a job, as its opening announced it (same key, same payload):
 * the reconciler sends it again when the first message was lost.
 */
export const exportRequest = (e: Pick<ExportState, 'id' | 'format'>): EventDraft<typeof EVENTS.transactionExportRequested> =>
  eventDraft(EVENTS.transactionExportRequested, 'requested', { export_id: e.id, format: e.format });

/** A new job, pending, announcing `transaction_export.requested` for the worker (its event commits with it). */
export function openExport(draft: ExportDraft, now: Date): ExportChange {
  const at = now.toISOString();
  const state: ExportState = {
    ...draft,
    status: 'pending',
    objectKey: exportObjectKey(draft.tenantId, draft.id, draft.format),
    rows: 0,
    bytes: 0,
    runs: 0,
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    completedAt: null,
    failureReason: null,
    expiresAt: new Date(now.getTime() + EXPORT_RETENTION_DAYS * 86_400_000).toISOString(),
    version: 0,
  };
  return { state, events: [exportRequest(state)] };
}

function refuse(e: ExportState, fact: ExportFact): never {
  throw new ConflictError(`A ${e.status} export cannot take '${fact.kind}'.`, { export_id: e.id, status: e.status, action: fact.kind });
}

/**
 * The pure transition: the job after `fact` at `now`. A fact the guards do not allow is a ConflictError. A start
 * beyond MAX_EXPORT_RUNS fails the job instead. Never writes.
 */
export function transition(e: ExportState, fact: ExportFact, now: Date): ExportChange {
  const at = now.toISOString();
  const move = (changes: Partial<ExportState>): ExportChange => ({ state: { ...e, ...changes, updatedAt: at }, events: [] });
  switch (fact.kind) {
    case 'started':
      if (!canStart(e)) refuse(e, fact);
      if (e.runs >= MAX_EXPORT_RUNS) return move({ status: 'failed', failureReason: `The export did not finish in ${MAX_EXPORT_RUNS} runs.` });
      return move({ status: 'running', runs: e.runs + 1, startedAt: at, rows: 0, bytes: 0, failureReason: null });
    case 'completed':
      if (!canComplete(e)) refuse(e, fact);
      if (!Number.isSafeInteger(fact.rows) || fact.rows < 0 || !Number.isSafeInteger(fact.bytes) || fact.bytes < 0) {
        throw new RangeError(`Invalid export size: ${fact.rows} rows, ${fact.bytes} bytes`);
      }
      return move({ status: 'completed', rows: fact.rows, bytes: fact.bytes, completedAt: at });
    case 'failed':
      if (!canFail(e)) refuse(e, fact);
      return move({ status: 'failed', failureReason: fact.reason });
  }
}
