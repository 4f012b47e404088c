import * as z from 'zod';
import { NotFoundError } from '../../domain/errors.js';
import type { ExportState } from '../../domain/exports.js';
import { EXPORT_FORMATS, EXPORT_STATUSES, isCompleted, isExpired } from '../../domain/exports.js';
import type { ExportsPorts } from './export-ports.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * `GET /transactions/export/{export_id}/`: the job as the merchant sees it; once completed, a presigned download URL
 * valid for `EXPORT_URL_TTL_SECONDS` (default 15 minutes) from this answer, signed anew on every read. An unknown id,
 * another tenant's, or one past its retention (7 days, when its file is gone) is 404 `not_found`.
 */

const nullableText = lazySchema(() => z.string().nullable());

export const ExportRecord = lazySchema(() =>
  z
    .object({
      export_id: z.string().uuid(),
      status: z.enum(EXPORT_STATUSES),
      format: z.enum(EXPORT_FORMATS),
      rows: z.number().int().meta({ description: 'Transactions in the file; 0 until completed.' }),
      bytes: z.number().int().meta({ description: 'Size of the file; 0 until completed.' }),
      created_at: z.string(),
      completed_at: nullableText(),
      failure_reason: nullableText(),
      download_url: nullableText().meta({ description: 'A presigned GET of the file, only when completed; signed anew on every read.' }),
      expires_at: nullableText().meta({ description: 'When download_url stops working.' }),
      filters: z
        .object({
          type: nullableText(),
          status: nullableText(),
          currency: nullableText(),
          wallet_id: nullableText(),
          date_from: nullableText().meta({ description: 'Inclusive ISO 8601 bound on created_at (a date alone covers its whole UTC day).' }),
          date_to: nullableText(),
        })
        .meta({ description: 'The filters applied; null: none.' }),
    })
    .meta({ id: 'TransactionExport' }),
);
export type ExportRecord = LazyOutput<typeof ExportRecord>;

export const ExportParams = lazySchema(() => z.object({ export_id: z.string().uuid() }));

export function presentExport(e: ExportState, download: { readonly url: string; readonly expiresAt: string } | null): ExportRecord {
  return {
    export_id: e.id,
    status: e.status,
    format: e.format,
    rows: e.rows,
    bytes: e.bytes,
    created_at: e.createdAt,
    completed_at: e.completedAt,
    failure_reason: e.failureReason,
    download_url: download?.url ?? null,
    expires_at: download?.expiresAt ?? null,
    filters: { ...e.filters },
  };
}

export async function getExport(
  tenantId: string,
  exportId: string,
  deps: Pick<ExportsPorts, 'exports' | 'files' | 'exportSettings' | 'clock'>,
): Promise<ExportRecord> {
  const now = deps.clock.now();
  const job = await deps.exports.get(tenantId, exportId);
  if (!job || isExpired(job, now)) throw new NotFoundError('Export not found.', { export_id: exportId });
  if (!isCompleted(job)) return presentExport(job, null);
  // SigV4 dates are whole seconds; the URL never outlives the export's retention.
  const signedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const seconds = Math.max(1, Math.min(deps.exportSettings.downloadUrlSeconds, Math.floor((Date.parse(job.expiresAt) - signedAt.getTime()) / 1000)));
  const url = await deps.files.downloadUrl(job.objectKey, { signedAt, expiresInSeconds: seconds });
  return presentExport(job, { url, expiresAt: new Date(signedAt.getTime() + seconds * 1000).toISOString() });
}
