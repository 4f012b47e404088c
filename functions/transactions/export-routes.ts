import type { ExportState } from '../../shared/domain/exports.js';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import { accepted, ok, principalOf, routesOf } from '../../shared/http/route.js';
import type { ExportsPorts } from '../../shared/usecases/transactions/export-ports.js';
import { ExportParams, ExportRecord, getExport } from '../../shared/usecases/transactions/get-export.js';
import { acknowledgeExport, ExportAccepted, ExportRequestBody, requestExport } from '../../shared/usecases/transactions/request-export.js';

/**
 * The transaction exports (spec 4.7 leaves their shapes open): a job requested with the list's filters, written to
 * S3 by the transaction-exports worker, read back with a presigned download URL. Spread into the transactions
 * Lambda's routes; its runtime merges `exportsRuntime()` (shared/runtime/exports.ts).
 */
const tags = ['Transactions'];
const route = routesOf<ExportsPorts>();
const notFound = { description: "not_found: unknown, another tenant's, or past its 7-day retention" };
const present = (e: ExportState) => accepted(acknowledgeExport(e));

export const exportRoutes = [
  route({
    method: 'POST',
    path: '/transactions/export/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: ExportRequestBody,
    idempotent: true,
    doc: {
      summary: 'Export the transaction history',
      description:
        'Accepts a job at once (202) and writes the file asynchronously: format csv (RFC 4180, a header row, CRLF) or json (an array), one row per transaction newest first with the list’s fields, amounts as exact decimal strings. Filters as GET /transactions/transactions/: type, status, currency, wallet_id, date_from, date_to (a bad filter is 400 invalid_request naming the field). Poll GET /transactions/export/{export_id}/ for the download URL. Exports are kept 7 days. Honours Idempotency-Key.',
      tags,
      responses: {
        202: { description: 'Accepted: the job, pending', schema: ExportAccepted },
        400: { description: 'invalid_request: a bad format or filter (details per field)' },
      },
    },
    handle: async (req, deps) =>
      present(await requestExport({ tenantId: principalOf(req).tenant.id, body: req.body, idempotency: req.idempotency?.with(present) ?? null }, deps)),
  }),
  route({
    method: 'GET',
    path: '/transactions/export/{export_id}/',
    auth: 'bearer',
    scopes: READ,
    params: ExportParams,
    doc: {
      summary: 'An export job and its download',
      description:
        'status pending, running, completed or failed (failure_reason); rows and bytes of the file once completed, with download_url, a presigned GET valid for 15 minutes (expires_at), signed anew on every read.',
      tags,
      responses: { 200: { description: 'The export', schema: ExportRecord }, 404: notFound },
    },
    handle: async (req, deps) => ok(await getExport(principalOf(req).tenant.id, req.params.export_id, deps)),
  }),
];
