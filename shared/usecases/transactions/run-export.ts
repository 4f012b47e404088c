import { ConflictError, GatewayError } from '../../domain/errors.js';
import type { ExportFilters, ExportState } from '../../domain/exports.js';
import { canComplete, exportFileName, isFinal, transition } from '../../domain/exports.js';
import type { ExportsPorts } from './export-ports.js';
import { encoderFor } from './export-format.js';
import type { TransactionFilter, TransactionType } from './ports.js';
import { TRANSACTION_TYPES } from './ports.js';

/**
 * The transaction-exports worker's step: writes the job's file page by page and completes the job with its rows and
 * bytes. Memory holds one history page and what the upload buffers (one S3 part at most), never the whole history.
 *
 * Idempotent per message: a completed or failed job is left as it is; a pending one starts; a running one (its run
 * died, and the queue redelivered the message) starts over from the first page and overwrites the file. Each step is
 * a save conditioned on the version read, so of two deliveries running at once only one completes the job; the
 * other stops before making its file visible when it sees the job moved. Errors the history or the store raise for
 * the request itself (GatewayError) fail the job at once; any other error is left to the queue to retry.
 */

const isTransactionType = (t: string): t is TransactionType => (TRANSACTION_TYPES as readonly string[]).includes(t);

/** The history's filter of a job's recorded filters. */
export function historyFilterOf(f: ExportFilters): TransactionFilter {
  return {
    ...(f.type !== null && isTransactionType(f.type) ? { type: f.type } : {}),
    ...(f.status !== null ? { status: f.status } : {}),
    ...(f.currency !== null ? { currency: f.currency } : {}),
    ...(f.wallet_id !== null ? { walletId: f.wallet_id } : {}),
    ...(f.date_from !== null ? { dateFrom: f.date_from } : {}),
    ...(f.date_to !== null ? { dateTo: f.date_to } : {}),
  };
}

type Deps = Pick<ExportsPorts, 'exports' | 'history' | 'files' | 'exportSettings' | 'clock'>;

/** Saves a change; when the job moved meanwhile (another delivery), answers the job as it now is. */
async function saveOrReread(job: ExportState, change: Parameters<Deps['exports']['save']>[1], deps: Deps): Promise<ExportState | null> {
  try {
    return await deps.exports.save(job, change, deps.clock.now());
  } catch (error) {
    if (error instanceof ConflictError) return deps.exports.get(job.tenantId, job.id);
    throw error;
  }
}

export async function runExport(ref: { readonly tenantId: string; readonly exportId: string }, deps: Deps): Promise<ExportState | null> {
  const job = await deps.exports.get(ref.tenantId, ref.exportId);
  if (job === null || isFinal(job)) return job;
  let running: ExportState;
  try {
    running = await deps.exports.save(job, transition(job, { kind: 'started' }, deps.clock.now()), deps.clock.now());
  } catch (error) {
    // Another delivery moved the job first: it runs it.
    if (error instanceof ConflictError) return deps.exports.get(job.tenantId, job.id);
    throw error;
  }
  // Gave up after too many runs: it will not complete.
  if (!canComplete(running)) return running;

  const encoder = encoderFor(running.format);
  const upload = deps.files.upload(running.objectKey, { contentType: encoder.contentType, fileName: exportFileName(running) });
  let rows = 0;
  try {
    const filter = historyFilterOf(running.filters);
    await upload.write(encoder.header);
    let cursor: string | undefined;
    do {
      const page = await deps.history.page(running.tenantId, filter, { limit: deps.exportSettings.pageSize, ...(cursor !== undefined ? { cursor } : {}) });
      let text = '';
      for (const record of page.items) text += encoder.row(record, rows++);
      if (text.length > 0) await upload.write(text);
      if (page.cursor !== undefined && page.cursor === cursor) throw new Error(`The history returned the same cursor twice for export ${running.id}`);
      cursor = page.cursor;
    } while (cursor !== undefined);
    await upload.write(encoder.footer);

    // Still this run's job? A later delivery restarted it meanwhile: its own file is the one to keep.
    const current = await deps.exports.get(running.tenantId, running.id);
    if (current === null || current.version !== running.version) {
      await upload.abort();
      return current;
    }
    const { bytes } = await upload.complete();
    return await saveOrReread(running, transition(running, { kind: 'completed', rows, bytes }, deps.clock.now()), deps);
  } catch (error) {
    await upload.abort();
    if (!(error instanceof GatewayError)) throw error;
    return saveOrReread(running, transition(running, { kind: 'failed', reason: error.message }, deps.clock.now()), deps);
  }
}
