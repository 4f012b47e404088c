import type { ApiUsage } from '../domain/tenant.js';
import type { UsageReader } from '../usecases/user/ports.js';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import { keys } from './keys.js';
import { integer } from './values.js';

/**
 * API usage and rate windows in one item per tenant and UTC day. Each request is ONE atomic update that
 * adds to the day's total and to the counter of its UTC hour (the fixed rate window), and returns both;
 * a rate bucket such as payment creations has its own hourly counter in the same item.
 */

export const WINDOW_SECONDS = 3600;

export interface Counted {
  /** Requests in the current hour, this one included. */
  readonly hourRequests: number;
  /** This request's bucket count in the current hour, when a bucket was given. */
  readonly hourBucket: number | null;
  /** Epoch seconds when the hour ends. */
  readonly resetAt: number;
}

const day = (at: Date) => at.toISOString().slice(0, 10);

export async function countRequest(tenantId: string, at: Date, bucket?: string): Promise<Counted> {
  const nowSeconds = Math.floor(at.getTime() / 1000);
  const hour = at.toISOString().slice(11, 13);
  const names: Record<string, string> = { '#ttl': 'ttl', '#hr': `requests_h${hour}` };
  let add = 'requests :one, #hr :one';
  if (bucket) {
    names['#hb'] = `${bucket}_h${hour}`;
    add += ', #hb :one';
  }
  const { Attributes = {} } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.usageDay(tenantId, day(at)),
      UpdateExpression: `ADD ${add} SET last_request = :at, #ttl = if_not_exists(#ttl, :ttl)`,
      ExpressionAttributeNames: names,
      // Kept 400 days for usage history; TTL deletes late, and old days are never read as windows.
      ExpressionAttributeValues: { ':one': 1, ':at': at.toISOString(), ':ttl': nowSeconds + 400 * 86400 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return {
    hourRequests: integer(Attributes[names['#hr'] ?? '']),
    hourBucket: bucket ? integer(Attributes[names['#hb'] ?? '']) : null,
    resetAt: nowSeconds - (nowSeconds % WINDOW_SECONDS) + WINDOW_SECONDS,
  };
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
