import type { ExportChange, ExportState } from '../domain/exports.js';
import { isFinal } from '../domain/exports.js';
import type { ExportJobs } from '../usecases/transactions/export-ports.js';
import type { WriteItem } from '../usecases/ports.js';
import type { EventDraft } from '../domain/events.js';
import { aggregateOutbox, commitAggregate, loadState, nextVersion, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { keys } from './keys.js';
import { asTransactItem } from './transact.js';

/**
 * Export jobs on the single table (shared/store/aggregate.ts: the state as JSON beside a few plain attributes; every
 * save conditioned on the version read). The item sits under its tenant (`keys.transactionExport`), so another
 * tenant's export id reads as nothing; DynamoDB's TTL removes it after the export's retention (reads check the
 * expiry themselves, shared/domain/exports.ts `isExpired`).
 */

const EXPORT = 'transaction_export';

function exportItem(e: ExportState): Record<string, unknown> {
  return {
    ...keys.transactionExport(e.tenantId, e.id),
    // In the reconciler's work queue until its file is written or it failed.
    ...(isFinal(e) ? {} : keys.exportQueue(e.createdAt, e.tenantId, e.id)),
    ...stateAttributes(EXPORT, e),
    tenant_id: e.tenantId,
    export_id: e.id,
    status: e.status,
    created_at: e.createdAt,
    ttl: Math.floor(Date.parse(e.expiresAt) / 1000),
  };
}

/** An export's outbox events as its changes write them (natural ids `transaction_export:<id>:<key>`). */
export const exportOutboxEvents = (e: ExportState, events: readonly EventDraft[], now: Date) =>
  aggregateOutbox({ type: EXPORT, id: e.id, tenantId: e.tenantId }, events, {}, now);

const outbox = (e: ExportState, change: ExportChange, now: Date) => exportOutboxEvents(e, change.events, now);

/** An export item read from an index. */
export const exportOfItem = (item: Record<string, unknown>): ExportState => stateOf<ExportState>(item, EXPORT);

async function get(tenantId: string, exportId: string): Promise<ExportState | null> {
  return loadState<ExportState>(keys.transactionExport(tenantId, exportId), EXPORT);
}

async function create(change: ExportChange, now: Date, alsoWrite?: (stored: ExportState) => readonly WriteItem[]): Promise<ExportState> {
  const e = nextVersion(change.state, null);
  await commitAggregate({
    type: EXPORT,
    id: e.id,
    tenantId: e.tenantId,
    put: versionedPut(exportItem(e), null),
    outbox: outbox(e, change, now),
    items: (alsoWrite?.(e) ?? []).map(asTransactItem),
    now,
  });
  return e;
}

async function save(previous: ExportState, change: ExportChange, now: Date): Promise<ExportState> {
  const e = nextVersion(change.state, previous.version);
  await commitAggregate({
    type: EXPORT,
    id: e.id,
    tenantId: e.tenantId,
    put: versionedPut(exportItem(e), previous.version),
    outbox: outbox(e, change, now),
    now,
  });
  return e;
}

export const dynamoExportJobs: ExportJobs = { get, create, save };
