import { randomInt } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../domain/errors.js';
import { WORDING } from '../domain/errors-wording.js';
import type { Decimal } from '../domain/money.js';
import { add } from '../domain/money.js';
import type { TransactionRecord } from '../domain/transactions.js';
import { isTransactionType, statsDay, statsDelta, tenantTotalsOf } from '../domain/transactions.js';
import type { TransactionFilter, TransactionHistory, TransactionPage } from '../usecases/transactions/ports.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { decimalText, storedDecimal } from './values.js';

/**
 * The transaction history on the single table (shared/domain/transactions.ts): one item per movement, put with
 * every change of it in the change's own transaction (`historyItems`, called by commitAggregate and the ledger
 * for adjustments), listed newest first from the tenant's gsi1 partition (never a Scan); and the statistics
 * counters of the movement's day, updated in the same transaction by the delta between the previous record and
 * the new one.
 */

const RECORD = 'transaction';
/** Shards of a day's statistics counters: concurrent movements of one tenant do not contend on one item. */
const STATS_SHARDS = 8;

function recordItem(tenantId: string, r: TransactionRecord): Record<string, unknown> {
  return {
    ...keys.transaction(tenantId, r.type, r.id),
    ...keys.transactionList(tenantId, r.created_at, r.type, r.id),
    type: RECORD,
    tenant_id: tenantId,
    tx_type: r.type,
    status: r.status,
    currency: r.currency,
    wallet_id: r.wallet_id ?? '-',
    record: JSON.stringify(r),
  };
}

/** `pk|sk` of the item a transaction item writes or checks. */
function keyText(item: TransactItem): string | null {
  const key = (item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key) as Record<string, unknown> | undefined;
  return key ? `${String(key.pk)}|${String(key.sk)}` : null;
}

/**
 * The writes that keep the history and the statistics true for a change of a movement, for its transaction.
 * `alongside`: the other items of that transaction. A transaction may carry two movements (a refund created in its
 * payment's save) and may not touch one item twice, so each counter goes to a random shard that none of them
 * updates already.
 */
export function historyItems(
  tenantId: string,
  previous: TransactionRecord | null,
  next: TransactionRecord,
  alongside: readonly TransactItem[] = [],
): TransactItem[] {
  const items: TransactItem[] = [{ Put: { TableName: tableName(), Item: recordItem(tenantId, next) } }];
  const delta = Object.entries(statsDelta(previous, next));
  if (delta.length === 0) return items;
  const taken = new Set(alongside.map(keyText));
  const free = (keyOf: (shard: number) => { pk: string; sk: string }) => {
    const first = randomInt(STATS_SHARDS);
    for (let i = 0; i < STATS_SHARDS; i++) {
      const key = keyOf((first + i) % STATS_SHARDS);
      if (!taken.has(`${key.pk}|${key.sk}`)) return key;
    }
    throw new RangeError(`every statistics shard of tenant ${tenantId} is already in the transaction`);
  };
  // The same delta on the movement's day and on all time (the tenant's totals, `/user/me/`).
  for (const key of [free((shard) => keys.transactionStats(tenantId, statsDay(next), shard)), free((shard) => keys.transactionStatsAllTime(tenantId, shard))]) {
    items.push({
      Update: {
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET #type = :type ADD ${delta.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
        ExpressionAttributeNames: { '#type': 'type', ...Object.fromEntries(delta.map(([name], i) => [`#c${i}`, name])) },
        ExpressionAttributeValues: { ':type': 'transaction_stats', ...Object.fromEntries(delta.map(([, v], i) => [`:c${i}`, storedDecimal(v)])) },
      },
    });
  }
  return items;
}

/* ------------------------------------------------------------------------------------------------------ reads */

/** The query of a filter: the date range on the sort key, the rest as a filter expression. */
function queryOf(tenantId: string, filter: TransactionFilter): QueryCommandInput {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': keys.transactionListPartition(tenantId) };
  const conditions: string[] = [];
  const equal = (attribute: string, value: string | undefined) => {
    if (value === undefined) return;
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    conditions.push(`#${attribute} = :${attribute}`);
  };
  equal('tx_type', filter.type);
  equal('status', filter.status);
  equal('currency', filter.currency);
  equal('wallet_id', filter.walletId);
  let key = 'gsi1pk = :pk';
  const range = keys.transactionListRange(filter.dateFrom ?? '', filter.dateTo ?? '~');
  if (filter.dateFrom !== undefined && filter.dateTo !== undefined) {
    key += ' AND gsi1sk BETWEEN :from AND :to';
    Object.assign(values, { ':from': range.from, ':to': range.to });
  } else if (filter.dateFrom !== undefined) {
    key += ' AND gsi1sk >= :from';
    values[':from'] = range.from;
  } else if (filter.dateTo !== undefined) {
    key += ' AND gsi1sk <= :to';
    values[':to'] = range.to;
  }
  return {
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: key,
    ExpressionAttributeValues: values,
    ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names } : {}),
    ScanIndexForward: false,
  };
}

const encodeCursor = (key: Record<string, unknown>): string => Buffer.from(JSON.stringify(key)).toString('base64url');

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const CURSOR_FIELDS = ['gsi1pk', 'gsi1sk', 'pk', 'sk'];

/**
 * The start key a cursor names, rebuilt from keys.ts, or 400 `invalid_request` naming `cursor`. A cursor is the
 * table and index key of the last record of the previous page (base64url JSON): it must be exactly such a key, of a
 * record of the caller's own history (`created_at#type#id` on the index, `TXN#type#id` on the table, both of the
 * same record), and lie within the dates asked, so DynamoDB is never handed a start key it refuses (a 500).
 */
function decodeCursor(cursor: string, tenantId: string, filter: TransactionFilter): Record<string, string> {
  const refuse = () => ValidationError.field('cursor', WORDING.notOurs);
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(cursor)) throw refuse();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key)) throw refuse();
  const fields = key as Record<string, unknown>;
  if (Object.keys(fields).sort().join() !== CURSOR_FIELDS.join() || CURSOR_FIELDS.some((f) => typeof fields[f] !== 'string')) throw refuse();
  const [createdAt = '', type = '', id = '', ...more] = String(fields.gsi1sk).split('#');
  if (more.length > 0 || !INSTANT.test(createdAt) || !isTransactionType(type) || !/^[\w:.-]{1,200}$/.test(id)) throw refuse();
  const rebuilt = { ...keys.transaction(tenantId, type, id), ...keys.transactionList(tenantId, createdAt, type, id) };
  if (CURSOR_FIELDS.some((f) => fields[f] !== rebuilt[f as keyof typeof rebuilt])) throw refuse();
  const range = keys.transactionListRange(filter.dateFrom ?? '', filter.dateTo ?? '~');
  if ((filter.dateFrom !== undefined && rebuilt.gsi1sk < range.from) || (filter.dateTo !== undefined && rebuilt.gsi1sk > range.to)) throw refuse();
  return rebuilt;
}

const keyOf = (item: Record<string, unknown>) => ({ pk: item.pk, sk: item.sk, gsi1pk: item.gsi1pk, gsi1sk: item.gsi1sk });

async function page(
  tenantId: string,
  filter: TransactionFilter,
  options: { readonly limit: number; readonly cursor?: string; readonly offset?: number },
): Promise<TransactionPage> {
  const input = queryOf(tenantId, filter);
  const items: TransactionRecord[] = [];
  let skip = options.offset ?? 0;
  let start: Record<string, unknown> | undefined = options.cursor === undefined ? undefined : decodeCursor(options.cursor, tenantId, filter);
  let last: Record<string, unknown> | undefined;
  // A filter expression drops items after they are read: each request reads as many as the share of matches seen
  // so far says it takes to fill the page (Limit counts items read, not returned).
  const filtered = input.FilterExpression !== undefined;
  let read = 0;
  let matched = 0;
  do {
    const want = skip + options.limit - items.length;
    const share = filtered ? (read === 0 ? 0.25 : Math.max(matched / read, 0.02)) : 1;
    const res = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: start, Limit: Math.min(Math.max(Math.ceil(want / share), 25), 1000) }));
    const found = res.Items ?? [];
    read += res.ScannedCount ?? found.length;
    matched += found.length;
    let taken = 0;
    for (const item of found) {
      taken++;
      if (skip > 0) {
        skip--;
        continue;
      }
      items.push(JSON.parse(String(item.record)) as TransactionRecord);
      last = item;
      if (items.length === options.limit) break;
    }
    // Stopped inside a page: resume after the last item taken; else where the page ended.
    start = taken < found.length ? (last ? keyOf(last) : undefined) : res.LastEvaluatedKey;
    if (items.length === options.limit) break;
  } while (start);
  const more = items.length === options.limit && start !== undefined;
  return { items, ...(more && last ? { cursor: encodeCursor(keyOf(last)) } : {}) };
}

/** How many records match (a COUNT query over the same range and filter: read, never returned). */
async function count(tenantId: string, filter: TransactionFilter): Promise<number> {
  const input = { ...queryOf(tenantId, filter), Select: 'COUNT' as const };
  let total = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const res = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    total += res.Count ?? 0;
    start = res.LastEvaluatedKey;
  } while (start);
  return total;
}

/** The sums of the statistics counters of the days `from` to `to` (yyyy-mm-dd, inclusive). */
async function statsSums(tenantId: string, from: string, to: string): Promise<Record<string, Decimal>> {
  const range = keys.transactionStatsRange(tenantId, from, to);
  return sumsOf(
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
      ConsistentRead: true,
    }),
  );
}

/** The sums of the all-time counters (its shards). */
export async function allTimeSums(tenantId: string): Promise<Record<string, Decimal>> {
  const prefix = keys.transactionStatsAllTimePrefix(tenantId);
  return sumsOf(
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': prefix.pk, ':p': prefix.skPrefix },
      ConsistentRead: true,
    }),
  );
}

function sumsOf(items: readonly Record<string, unknown>[]): Record<string, Decimal> {
  const sums: Record<string, Decimal> = {};
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) {
      if (!name.includes('|')) continue;
      sums[name] = add(sums[name] ?? '0', decimalText(value));
    }
  }
  return sums;
}

export const dynamoTransactionHistory: TransactionHistory = { page, count, statsSums, allTimeSums };

/** How many payments the tenant ever created, from the all-time counters (`n|payment|<status>|<currency>`). */
export async function paymentCount(tenantId: string): Promise<number> {
  return tenantTotalsOf(await allTimeSums(tenantId)).payments;
}
