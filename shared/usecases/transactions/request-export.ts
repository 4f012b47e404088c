import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { ExportFilters, ExportState } from '../../domain/exports.js';
import { EXPORT_FORMATS, openExport } from '../../domain/exports.js';
import type { IdempotencyGuard } from '../ports.js';
import type { ExportsPorts } from './export-ports.js';
import { TransactionFilterFields, transactionFilterOf } from './list-transactions.js';
import type { TransactionFilter } from './ports.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * `POST /transactions/export/` (spec 4.7 leaves its shapes open): records an export job and its
 * `transaction_export.requested` event in ONE transaction and answers 202 at once; the transaction-exports worker
 * writes the file (run-export.ts). The filters are the list's (`GET /transactions/transactions/`), checked the same
 * way: a bad one is 400 `invalid_request` naming the field, date_from after date_to names date_to.
 */
export const ExportRequestBody = lazySchema(() =>
  z
    .object({
      format: z.enum(EXPORT_FORMATS).default('csv').meta({ description: 'csv (RFC 4180, header row) or json (an array).' }),
      ...TransactionFilterFields(),
    })
    .meta({ id: 'TransactionExportRequest' }),
);
export type ExportRequestBody = z.output<ReturnType<typeof ExportRequestBody>>;

export const ExportAccepted = lazySchema(() =>
  z
    .object({
      export_id: z.string().uuid(),
      status: z.literal('pending'),
      format: z.enum(EXPORT_FORMATS),
      created_at: z.string(),
    })
    .meta({ id: 'TransactionExportAccepted' }),
);
export type ExportAccepted = LazyOutput<typeof ExportAccepted>;

export const acknowledgeExport = (e: ExportState): ExportAccepted => ({ export_id: e.id, status: 'pending', format: e.format, created_at: e.createdAt });

/** The filters as an export records (and shows) them. */
export const exportFiltersOf = (f: TransactionFilter): ExportFilters => ({
  type: f.type ?? null,
  status: f.status ?? null,
  currency: f.currency ?? null,
  wallet_id: f.walletId ?? null,
  date_from: f.dateFrom ?? null,
  date_to: f.dateTo ?? null,
});

export interface RequestExportInput {
  readonly tenantId: string;
  readonly body: ExportRequestBody;
  readonly idempotency?: IdempotencyGuard<ExportState> | null;
}

export async function requestExport(input: RequestExportInput, deps: Pick<ExportsPorts, 'exports' | 'clock'>): Promise<ExportState> {
  const { format, ...filters } = input.body;
  const filter = transactionFilterOf(filters);
  const now = deps.clock.now();
  const change = openExport({ id: randomUUID(), tenantId: input.tenantId, format, filters: exportFiltersOf(filter) }, now);
  const guard = input.idempotency;
  return deps.exports.create(change, now, guard ? (stored) => [guard.completeItem(stored)] : undefined);
}
