import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactionRecord } from '../shared/domain/transactions.js';
import { db, tableName } from '../shared/store/client.js';
import { keys } from '../shared/store/keys.js';
import { dynamoTransactionHistory, historyItems } from '../shared/store/transactions.js';
import { LOCAL_EXPORT_BUCKET, startS3 } from '../infra/local/s3.js';
import { systemClock } from '../shared/domain/clock.js';
import { exportsS3Client, s3ExportFiles } from '../shared/store/export-files.js';
import { dynamoExportJobs } from '../shared/store/exports.js';
import type { ExportsPorts } from '../shared/usecases/transactions/export-ports.js';
import { requestExport } from '../shared/usecases/transactions/request-export.js';
import { runExport } from '../shared/usecases/transactions/run-export.js';

/**
 * Transaction history reads: one page of `GET /transactions/transactions/` as the store serves it (the index
 * Query, filter and cursor) beside the raw Query of the same page of items on the same partition, on a tenant
 * with `records` movements; and the same for a filtered page (type=withdrawal, a fifth of the movements). Then
 * the export worker's rows per second (the whole history as CSV to the local S3 server) beside raw Queries reading
 * the same items.
 *
 * Needs TABLE_NAME and AWS_ENDPOINT_URL_DYNAMODB pointing at a DynamoDB Local with the gateway table.
 */
export interface HistoryBench {
  readonly records: number;
  readonly pageMs: number;
  readonly rawPageMs: number;
  readonly filteredPageMs: number;
  readonly rawFilteredPageMs: number;
  /** The export worker: every record paged from the history, written as CSV to the local S3 server. */
  readonly exportRowsPerSecond: number;
  readonly exportBytes: number;
  /** Every record read by raw Queries of 500, nothing written. */
  readonly rawQueryRowsPerSecond: number;
}

const TYPES = ['payment', 'payment', 'transfer', 'adjustment', 'withdrawal'] as const;

function record(i: number, at: number): TransactionRecord {
  const type = TYPES[i % TYPES.length] ?? 'payment';
  return {
    id: randomUUID(),
    type,
    status: 'completed',
    subtype: null,
    direction: type === 'withdrawal' ? 'out' : 'in',
    currency: 'USDTERC20',
    amount: `${(i % 997) + 1}.25`,
    fee: '0.25',
    net_amount: `${(i % 997) + 1}`,
    amount_usd: null,
    created_at: new Date(at - i * 1000).toISOString(),
    updated_at: new Date(at - i * 1000).toISOString(),
    transaction_hash: null,
    order_id: `order-${i}`,
    custom_id: null,
    wallet_id: null,
  };
}

async function seed(tenantId: string, records: number): Promise<void> {
  const now = Date.now();
  const puts = Array.from({ length: records }, (_, i) => historyItems(tenantId, null, record(i, now))[0]?.Put?.Item ?? {});
  for (let i = 0; i < puts.length; i += 25) {
    let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {
      [tableName()]: puts.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
    };
    while (request && Object.keys(request).length > 0) {
      const res = await db().send(new BatchWriteCommand({ RequestItems: request }));
      request = res.UnprocessedItems as typeof request;
    }
  }
}

async function timed(runs: number, step: () => Promise<unknown>): Promise<number> {
  await step();
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await step();
  return Number(process.hrtime.bigint() - started) / 1e6 / runs;
}

/** One CSV export of the tenant's whole history through the worker's use case, to the local S3 server. */
async function timedExport(tenantId: string): Promise<{ rows: number; bytes: number; seconds: number }> {
  const s3 = await startS3();
  try {
    const deps: ExportsPorts = {
      exports: dynamoExportJobs,
      history: dynamoTransactionHistory,
      files: s3ExportFiles({ client: exportsS3Client({ region: 'us-east-1', endpoint: s3.url }), bucket: LOCAL_EXPORT_BUCKET }),
      exportSettings: { pageSize: 500, downloadUrlSeconds: 900 },
      clock: systemClock,
    };
    const job = await requestExport({ tenantId, body: { format: 'csv' } }, deps);
    const started = process.hrtime.bigint();
    const done = await runExport({ tenantId, exportId: job.id }, deps);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (done?.status !== 'completed') throw new Error(`The benchmark export ended ${done?.status ?? 'missing'}`);
    return { rows: done.rows ?? 0, bytes: done.bytes ?? 0, seconds };
  } finally {
    await s3.close();
  }
}

export async function benchHistory(options: { readonly records: number; readonly runs: number; readonly limit?: number }): Promise<HistoryBench> {
  const tenantId = `bench-${randomUUID()}`;
  const limit = options.limit ?? 50;
  await seed(tenantId, options.records);
  const raw = (filter?: string) =>
    db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.transactionListPartition(tenantId), ...(filter ? { ':t': filter } : {}) },
        ...(filter ? { FilterExpression: 'tx_type = :t' } : {}),
        ScanIndexForward: false,
        Limit: filter ? limit * TYPES.length : limit,
      }),
    );
  // The two sides alternate, so a change of machine load hits both alike.
  let pageMs = 0;
  let rawPageMs = 0;
  let filteredPageMs = 0;
  let rawFilteredPageMs = 0;
  const rounds = 4;
  for (let r = 0; r < rounds; r++) {
    pageMs += await timed(options.runs, () => dynamoTransactionHistory.page(tenantId, {}, { limit }));
    rawPageMs += await timed(options.runs, () => raw());
    filteredPageMs += await timed(options.runs, () => dynamoTransactionHistory.page(tenantId, { type: 'withdrawal' }, { limit }));
    rawFilteredPageMs += await timed(options.runs, () => raw('withdrawal'));
  }
  const exported = await timedExport(tenantId);
  const rawStarted = process.hrtime.bigint();
  let read = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.transactionListPartition(tenantId) },
        ScanIndexForward: false,
        Limit: 500,
        ExclusiveStartKey: start,
      }),
    );
    read += res.Items?.length ?? 0;
    start = res.LastEvaluatedKey;
  } while (start);
  const rawSeconds = Number(process.hrtime.bigint() - rawStarted) / 1e9;
  return {
    records: options.records,
    exportRowsPerSecond: exported.rows / exported.seconds,
    exportBytes: exported.bytes,
    rawQueryRowsPerSecond: read / rawSeconds,
    pageMs: pageMs / rounds,
    rawPageMs: rawPageMs / rounds,
    filteredPageMs: filteredPageMs / rounds,
    rawFilteredPageMs: rawFilteredPageMs / rounds,
  };
}
