import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import { keys } from './keys.js';
import { integer } from './values.js';

/**
 * Fixed-window rate counters and daily API usage. Both are single atomic `ADD`s; DynamoDB TTL removes
 * old windows late, so a window is identified by its start and never read after it ends.
 */

export const WINDOW_SECONDS = 3600;

/** Adds one request to the window containing `nowSeconds` and returns the count including it. */
export async function countInWindow(tenantId: string, bucket: string, nowSeconds: number): Promise<{ count: number; resetAt: number }> {
  const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
  const resetAt = windowStart + WINDOW_SECONDS;
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.rateWindow(tenantId, bucket, windowStart),
      UpdateExpression: 'ADD #c :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#c': 'count', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': resetAt + WINDOW_SECONDS },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return { count: integer(Attributes?.count), resetAt };
}

const day = (at: Date) => at.toISOString().slice(0, 10);

/** Counts one request in the tenant's usage for the UTC day of `at` (kept 400 days). */
export async function recordUsage(tenantId: string, at: Date): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.usageDay(tenantId, day(at)),
      UpdateExpression: 'ADD requests :one SET last_request = :at, #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':at': at.toISOString(), ':ttl': Math.floor(at.getTime() / 1000) + 400 * 86400 },
    }),
  );
}

export interface ApiUsage {
  readonly requests_today: number;
  readonly requests_this_month: number;
  readonly last_request: string | null;
}

/** Today's and this month's counts (UTC), from the daily items of the month. */
export async function readUsage(tenantId: string, now: Date): Promise<ApiUsage> {
  const { pk, skPrefix } = keys.usageMonthPrefix(tenantId, now.toISOString().slice(0, 7));
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
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
