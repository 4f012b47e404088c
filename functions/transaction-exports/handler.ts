import { EVENTS, parseRoutedEvent } from '../../shared/domain/events.js';
import { exportsRuntime } from '../../shared/runtime/exports.js';
import type { SqsWorkerHandler } from '../../shared/runtime/worker.js';
import { sqsWorker } from '../../shared/runtime/worker.js';
import type { ExportsPorts } from '../../shared/usecases/transactions/export-ports.js';
import { runExport } from '../../shared/usecases/transactions/run-export.js';

/**
 * `transaction-exports` queue consumer (batch size 1, 300 s): each `transaction_export.requested` event the event
 * router forwards writes its export's file to S3 (shared/usecases/transactions/run-export.ts), idempotently. A message
 * that does not parse, or whose run throws, comes back; the next delivery starts the file over.
 */
export const exportWorker = (deps: ExportsPorts): SqsWorkerHandler =>
  sqsWorker('transaction-exports', async (record) => {
    const event = parseRoutedEvent(JSON.parse(record.body), [EVENTS.transactionExportRequested]);
    await runExport({ tenantId: event.tenant_id, exportId: event.payload.export_id }, deps);
  });

export const handler = exportWorker(exportsRuntime());
