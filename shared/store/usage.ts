import type { ApiUsage } from '../domain/tenant.js';
import type { UsageReader } from '../usecases/user/ports.js';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Decimal } from '../domain/money.js';
import { db, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { decimalText, integer, storedDecimal } from './values.js';

/**
 * API usage and rate windows in one item per tenant and UTC day. Each request is counted once, by ONE atomic
 * update that adds to the day's total and to the counter of its UTC hour (the fixed rate window): either alone
 * (`countRequest`, returning the new counts) or inside the transaction of the route's own write (`countItem`); a
 * rate bucket such as payment creations has its own hourly counter in the same item. The item also keeps the USD
 * total of the day's payments (`payments_usd`, against the tenant's daily limit), in the same update as a creation's
 * count: a creation writes one item of the tenant's day, not two.
 */

export const WINDOW_SECONDS = 3600;

export interface Counted {
  /** Requests in the current hour: after `countRequest`, this one included; as read (`hourCounts`), before it. */
  readonly hourRequests: number;
  /** The bucket's count in the current hour (the same way), when a bucket was given. */
  readonly hourBucket: number | null;
  /** Epoch seconds when the hour ends. */
  readonly resetAt: number;
}

/** The hourly limits a count inside a transaction keeps (`countItem`). */
export interface HourLimits {
  readonly requests: number;
  /** The bucket's, when the request has one. */
  readonly bucket: number | null;
}

const day = (at: Date) => at.toISOString().slice(0, 10);
const hourOf = (at: Date) => at.toISOString().slice(11, 13);
const secondsOf = (at: Date) => Math.floor(at.getTime() / 1000);
const resetAtOf = (at: Date) => secondsOf(at) - (secondsOf(at) % WINDOW_SECONDS) + WINDOW_SECONDS;
const requestsAttribute = (at: Date) => `requests_h${hourOf(at)}`;
const bucketAttribute = (bucket: string, at: Date) => `${bucket}_h${hourOf(at)}`;

/** The tenant's usage item of `at`'s UTC day. */
export const usageDayKey = (tenantId: string, at: Date) => keys.usageDay(tenantId, day(at));

/** Kept 400 days for usage history; TTL deletes late, and old days are never read as windows. */
const USAGE_TTL_SECONDS = 400 * 86400;

/**
 * The tenant's USD total of the day's payments, kept on the same item (`payments_usd`) by each creation's transaction:
 * `amountUsd` added on condition that the total before it is within `roomUsd` (the daily limit less the amount).
 */
export interface DayTotal {
  readonly amountUsd: Decimal;
  readonly roomUsd: Decimal;
}

const PAYMENTS_USD = 'payments_usd';

/** What one update of a usage item does: count a request (in its hour and bucket, within `limits` when given), add to the day's payments total. */
interface DayUpdate {
  readonly count?: { readonly bucket?: string; readonly limits?: HourLimits };
  readonly total?: DayTotal;
}

/**
 * The one spelling of an update of a usage item: a request's count (the day's total, its hour, its bucket's hour)
 * and the day's payments total, ADDed; the item's TTL; and the conditions that keep the limits given.
 */
function dayUpdate(tenantId: string, at: Date, { count, total }: DayUpdate) {
  const names: Record<string, string> = { '#ttl': 'ttl' };
  const values: Record<string, unknown> = { ':ttl': secondsOf(at) + USAGE_TTL_SECONDS };
  const adds: string[] = [];
  const sets = ['#ttl = if_not_exists(#ttl, :ttl)'];
  const conditions: string[] = [];
  if (count) {
    Object.assign(names, { '#hr': requestsAttribute(at) });
    Object.assign(values, { ':one': 1, ':at': at.toISOString() });
    adds.push('requests :one', '#hr :one');
    sets.unshift('last_request = :at');
    if (count.limits) {
      conditions.push('(attribute_not_exists(#hr) OR #hr < :maxRequests)');
      values[':maxRequests'] = count.limits.requests;
    }
    if (count.bucket) {
      names['#hb'] = bucketAttribute(count.bucket, at);
      adds.push('#hb :one');
      if (count.limits && count.limits.bucket !== null) {
        conditions.push('(attribute_not_exists(#hb) OR #hb < :maxBucket)');
        values[':maxBucket'] = count.limits.bucket;
      }
    }
  }
  if (total) {
    names['#pu'] = PAYMENTS_USD;
    values[':usd'] = storedDecimal(total.amountUsd);
    adds.push('#pu :usd');
    values[':room'] = storedDecimal(total.roomUsd);
    conditions.push('(attribute_not_exists(#pu) OR #pu <= :room)');
  }
  return {
    TableName: tableName(),
    Key: usageDayKey(tenantId, at),
    UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
    ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

const MAX_ATTEMPTS = 5;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const isTransactionConflict = (error: unknown) => error instanceof Error && error.name === 'TransactionConflictException';

export async function countRequest(tenantId: string, at: Date, bucket?: string): Promise<Counted> {
  const update = dayUpdate(tenantId, at, { count: bucket ? { bucket } : {} });
  for (let attempt = 1; ; attempt++) {
    try {
      const { Attributes = {} } = await db().send(new UpdateCommand({ ...update, ReturnValues: 'UPDATED_NEW' }));
      return hourCounts(Attributes, at, bucket);
    } catch (error) {
      // The item is also written by creation transactions (`countItem`), which refuse a plain write meanwhile.
      if (!isTransactionConflict(error) || attempt >= MAX_ATTEMPTS) throw error;
      await sleep(Math.min(200, 10 * 2 ** attempt) * (0.5 + Math.random() / 2));
    }
  }
}

/** The counts of `at`'s hour in a usage item (or its updated attributes); none for a missing item. */
export function hourCounts(item: Record<string, unknown> | null, at: Date, bucket?: string): Counted {
  return {
    hourRequests: integer(item?.[requestsAttribute(at)]),
    hourBucket: bucket ? integer(item?.[bucketAttribute(bucket, at)]) : null,
    resetAt: resetAtOf(at),
  };
}

/**
 * The request counted inside the transaction of the route's own write: `countRequest`'s ADDs, conditioned on the
 * hour's requests and the bucket's count being still below their limits before it, so the transaction is refused
 * rather than the limits passed; with `total`, the same update keeps the day's payments total too (one item).
 */
export const countItem = (tenantId: string, at: Date, bucket: string | undefined, limits: HourLimits, total?: DayTotal): TransactItem => ({
  Update: dayUpdate(tenantId, at, { count: bucket ? { bucket, limits } : { limits }, ...(total ? { total } : {}) }),
});

/** The day's payments total alone, for a creation whose request is counted elsewhere (or that is no request). */
export const paymentsTotalItem = (tenantId: string, at: Date, total: DayTotal): TransactItem => ({ Update: dayUpdate(tenantId, at, { total }) });

/** The day's payments total so far (a refused creation tells a daily limit from a rate limit by it). */
export async function dayTotalUsd(tenantId: string, at: Date): Promise<Decimal> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: usageDayKey(tenantId, at), ConsistentRead: true }));
  return Item?.[PAYMENTS_USD] === undefined ? '0' : decimalText(Item[PAYMENTS_USD]);
}

export type { ApiUsage } from '../domain/tenant.js';

/** Today's and this month's counts (UTC), from the daily items of the month. */
export async function readUsage(tenantId: string, now: Date): Promise<ApiUsage> {
  const { pk, skPrefix } = keys.usageMonthPrefix(tenantId, now.toISOString().slice(0, 7));
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
      ProjectionExpression: 'sk, requests, last_request',
    }),
  );
  const todayKey = keys.usageDay(tenantId, day(now)).sk;
  let month = 0;
  let today = 0;
  let last: string | null = null;
  for (const item of Items) {
    const n = integer(item.requests);
    month += n;
    if (item.sk === todayKey) today = n;
    const at = item.last_request as string | undefined;
    if (at && (!last || at > last)) last = at;
  }
  return { requests_today: today, requests_this_month: month, last_request: last };
}

/** The DynamoDB usage counters (shared/usecases/user/ports.ts). */
export const dynamoUsage: UsageReader = { read: readUsage };
