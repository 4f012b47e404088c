import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactionRecord } from '../shared/domain/transactions.js';
import { db, tableName } from '../shared/store/client.js';
import { keys } from '../shared/store/keys.js';
import { dynamoTransactionHistory, historyItems } from '../shared/store/transactions.js';

/**
 * Transaction history reads: one page of `GET /transactions/transactions/` as the store serves it (the index
 * Query, filter and cursor) beside the raw Query of the same page of items on the same partition, on a tenant
 * with `records` movements; and the same for a filtered page (type=withdrawal, a fifth of the movements).
 *
 * Needs TABLE_NAME and AWS_ENDPOINT_URL_DYNAMODB pointing at a DynamoDB Local with the gateway table.
 */
export interface HistoryBench {
  readonly records: number;
  readonly pageMs: number;
  readonly rawPageMs: number;
  readonly filteredPageMs: number;
  readonly rawFilteredPageMs: number;
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
  return {
    records: options.records,
    pageMs: pageMs / rounds,
    rawPageMs: rawPageMs / rounds,
    filteredPageMs: filteredPageMs / rounds,
    rawFilteredPageMs: rawFilteredPageMs / rounds,
  };
}
