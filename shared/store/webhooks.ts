import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DELIVERY_LOG_DAYS } from '../domain/webhooks.js';
import type { DeliveryStatus, SubscriptionStatus } from '../domain/webhooks.js';
import { db, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { integer } from './values.js';

/**
 * Webhook items (keys in ./keys.ts): variant-A settings, variant-B subscriptions (with a per-URL guard item and
 * a per-tenant count, written in one transaction), deliveries (one per event and destination, keyed by that
 * natural id, conditionally written) and the attempt log (TTL 30 days).
 */

type Stored = Record<string, unknown>;
const isConditionFailure = (error: unknown) => (error as Error).name === 'ConditionalCheckFailedException';
const ttlAfterDays = (now: Date, days: number) => Math.floor(now.getTime() / 1000) + days * 86400;

/* ------------------------------------------------------------------ variant A ------------------------------ */

export interface WebhookSettings {
  readonly tenantId: string;
  readonly url: string;
  readonly secretCipher: string;
  readonly secretHint: string;
  /** null: every delivery event. */
  readonly enabledEvents: readonly string[] | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

const toSettings = (item: Stored): WebhookSettings => ({
  tenantId: item.tenant_id as string,
  url: item.url as string,
  secretCipher: item.secret_cipher as string,
  secretHint: item.secret_hint as string,
  enabledEvents: (item.enabled_events as string[] | null | undefined) ?? null,
  createdAt: item.created_at as string,
  updatedAt: item.updated_at as string,
});

export async function getWebhookSettings(tenantId: string): Promise<WebhookSettings | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookSettings(tenantId) }));
  return Item ? toSettings(Item) : null;
}

/** Writes the settings; `expectedUpdatedAt` null means "must not exist yet", else optimistic concurrency. */
export function putWebhookSettingsItem(settings: WebhookSettings, expectedUpdatedAt: string | null): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.webhookSettings(settings.tenantId),
        type: 'webhook_settings',
        tenant_id: settings.tenantId,
        url: settings.url,
        secret_cipher: settings.secretCipher,
        secret_hint: settings.secretHint,
        enabled_events: settings.enabledEvents === null ? null : [...settings.enabledEvents],
        created_at: settings.createdAt,
        updated_at: settings.updatedAt,
      },
      ...(expectedUpdatedAt === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'updated_at = :u', ExpressionAttributeValues: { ':u': expectedUpdatedAt } }),
    },
  };
}

/* ------------------------------------------------------------------ variant B ------------------------------ */

export interface Subscription {
  readonly tenantId: string;
  readonly id: string;
  readonly url: string;
  readonly urlHash: string;
  readonly eventTypes: readonly string[];
  readonly status: SubscriptionStatus;
  readonly createdAt: string;
  readonly lastTriggeredAt: string | null;
  readonly failureCount: number;
  readonly secretCipher: string;
  readonly secretHint: string;
  readonly description: string | null;
}

const toSubscription = (item: Stored): Subscription => ({
  tenantId: item.tenant_id as string,
  id: item.webhook_id as string,
  url: item.url as string,
  urlHash: item.url_hash as string,
  eventTypes: item.event_types as string[],
  status: item.status as SubscriptionStatus,
  createdAt: item.created_at as string,
  lastTriggeredAt: (item.last_triggered_at as string | null | undefined) ?? null,
  failureCount: integer(item.failure_count),
  secretCipher: item.secret_cipher as string,
  secretHint: item.secret_hint as string,
  description: (item.description as string | null | undefined) ?? null,
});

export async function getSubscription(tenantId: string, id: string): Promise<Subscription | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookSubscription(tenantId, id) }));
  return Item ? toSubscription(Item) : null;
}

export async function listSubscriptions(tenantId: string): Promise<Subscription[]> {
  const prefix = keys.webhookSubscriptionPrefix(tenantId);
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': prefix.pk, ':p': prefix.skPrefix },
    }),
  );
  return (Items ?? []).map(toSubscription).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Index of each item in the create transaction, to tell which condition failed. */
export const CREATE_SUBSCRIPTION_ITEMS = { count: 0, urlGuard: 1, subscription: 2 } as const;

export function createSubscriptionItems(sub: Subscription, maxPerTenant: number): TransactItem[] {
  return [
    {
      Update: {
        TableName: tableName(),
        Key: keys.webhookCount(sub.tenantId),
        UpdateExpression: 'ADD #n :one',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
        ExpressionAttributeNames: { '#n': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':max': maxPerTenant },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...keys.webhookUrlGuard(sub.tenantId, sub.urlHash), type: 'webhook_url', webhook_id: sub.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.webhookSubscription(sub.tenantId, sub.id),
          type: 'webhook_subscription',
          tenant_id: sub.tenantId,
          webhook_id: sub.id,
          url: sub.url,
          url_hash: sub.urlHash,
          event_types: [...sub.eventTypes],
          status: sub.status,
          created_at: sub.createdAt,
          last_triggered_at: sub.lastTriggeredAt,
          failure_count: sub.failureCount,
          secret_cipher: sub.secretCipher,
          secret_hint: sub.secretHint,
          description: sub.description,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

export function deleteSubscriptionItems(sub: Subscription): TransactItem[] {
  return [
    { Delete: { TableName: tableName(), Key: keys.webhookSubscription(sub.tenantId, sub.id), ConditionExpression: 'attribute_exists(pk)' } },
    { Delete: { TableName: tableName(), Key: keys.webhookUrlGuard(sub.tenantId, sub.urlHash) } },
    {
      Update: {
        TableName: tableName(),
        Key: keys.webhookCount(sub.tenantId),
        UpdateExpression: 'ADD #n :minus',
        ExpressionAttributeNames: { '#n': 'count' },
        ExpressionAttributeValues: { ':minus': -1 },
      },
    },
  ];
}

/**
 * Records one attempt on a subscription: a success resets `failure_count`; a failure adds one and, at the limit,
 * turns the subscription inactive. `last_triggered_at` is set either way. No-op when it was deleted.
 */
export async function recordSubscriptionAttempt(tenantId: string, id: string, succeeded: boolean, at: Date, failureLimit: number): Promise<void> {
  const key = keys.webhookSubscription(tenantId, id);
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: succeeded ? 'SET failure_count = :zero, last_triggered_at = :at' : 'SET last_triggered_at = :at ADD failure_count :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: succeeded ? { ':zero': 0, ':at': at.toISOString() } : { ':one': 1, ':at': at.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    if (!succeeded && Attributes && integer(Attributes.failure_count) >= failureLimit && Attributes.status === 'active') {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET #s = :inactive',
          ConditionExpression: 'attribute_exists(pk) AND failure_count >= :limit',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':inactive': 'inactive', ':limit': failureLimit },
        }),
      );
    }
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/* ------------------------------------------------------------------ deliveries ----------------------------- */

export type Destination =
  | { readonly kind: 'callback'; readonly url: string }
  | { readonly kind: 'default'; readonly url: string }
  | { readonly kind: 'subscription'; readonly url: string; readonly subscriptionId: string };

export interface Delivery {
  readonly tenantId: string;
  readonly deliveryId: string;
  readonly eventId: string;
  readonly eventType: string;
  /** Standard Webhooks `webhook-id`: the same on every attempt and redelivery. */
  readonly webhookId: string;
  readonly destination: Destination;
  /** The exact request body, identical on every attempt. */
  readonly body: string;
  readonly status: DeliveryStatus;
  /** Attempts completed (recorded). */
  readonly attempts: number;
  readonly createdAt: string;
  readonly nextDueAt: string | null;
  readonly leaseToken: string | null;
  readonly leaseUntil: string | null;
}

const toDelivery = (item: Stored): Delivery => ({
  tenantId: item.tenant_id as string,
  deliveryId: item.delivery_id as string,
  eventId: item.event_id as string,
  eventType: item.event_type as string,
  webhookId: item.webhook_id as string,
  destination: item.destination as Destination,
  body: item.body as string,
  status: item.status as DeliveryStatus,
  attempts: integer(item.attempts),
  createdAt: item.created_at as string,
  nextDueAt: (item.next_due_at as string | null | undefined) ?? null,
  leaseToken: (item.lease_token as string | null | undefined) ?? null,
  leaseUntil: (item.lease_until as string | null | undefined) ?? null,
});

/** Creates the delivery unless it exists (a replayed event); true when this call created it. */
export async function createDelivery(delivery: Delivery, now: Date): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookDelivery(delivery.tenantId, delivery.deliveryId),
          type: 'webhook_delivery',
          tenant_id: delivery.tenantId,
          delivery_id: delivery.deliveryId,
          event_id: delivery.eventId,
          event_type: delivery.eventType,
          webhook_id: delivery.webhookId,
          destination: delivery.destination,
          body: delivery.body,
          status: delivery.status,
          attempts: delivery.attempts,
          created_at: delivery.createdAt,
          next_due_at: delivery.nextDueAt,
          ttl: ttlAfterDays(now, DELIVERY_LOG_DAYS),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getDelivery(tenantId: string, deliveryId: string): Promise<Delivery | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.webhookDelivery(tenantId, deliveryId), ConsistentRead: true }),
  );
  return Item ? toDelivery(Item) : null;
}

/**
 * Claims attempt `attempt` (1-based): only while the delivery is pending, exactly `attempt - 1` attempts are
 * recorded and no other worker holds an unexpired lease. Returns false when another copy of the message won.
 */
export async function claimAttempt(tenantId: string, deliveryId: string, attempt: number, token: string, now: Date, leaseUntil: Date): Promise<Delivery | null> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(tenantId, deliveryId),
        UpdateExpression: 'SET lease_token = :t, lease_until = :until',
        ConditionExpression: '#s = :pending AND attempts = :prev AND (attribute_not_exists(lease_until) OR lease_until = :null OR lease_until < :now)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':t': token,
          ':until': leaseUntil.toISOString(),
          ':pending': 'pending',
          ':prev': attempt - 1,
          ':null': null,
          ':now': now.toISOString(),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? toDelivery(Attributes) : null;
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
}

/**
 * A message that arrived before its attempt is due is passed on (re-enqueued) as hop h+1. Only one copy of hop h
 * may pass it on: the first marks `relay = (attempt, h+1)` unsent with a lease, enqueues, then marks it sent; a
 * copy finding an unsent relay whose lease ran out (its holder died) takes it over. 'held' means another copy
 * holds a live lease (ask again later); 'done' means nothing is left to do for this copy.
 */
export async function claimRelay(tenantId: string, deliveryId: string, attempt: number, hop: number, now: Date, leaseUntil: Date): Promise<'claimed' | 'held' | 'done'> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(tenantId, deliveryId),
        UpdateExpression: 'SET relay_attempt = :a, relay_hop = :next, relay_until = :until, relay_sent = :false',
        ConditionExpression:
          '#s = :pending AND attempts = :prev AND (attribute_not_exists(relay_attempt) OR relay_attempt < :a OR (relay_attempt = :a AND relay_hop = :h) ' +
          'OR (relay_attempt = :a AND relay_hop = :next AND relay_sent = :false AND relay_until < :now))',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':a': attempt,
          ':h': hop,
          ':next': hop + 1,
          ':until': leaseUntil.toISOString(),
          ':false': false,
          ':pending': 'pending',
          ':prev': attempt - 1,
          ':now': now.toISOString(),
        },
      }),
    );
    return 'claimed';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookDelivery(tenantId, deliveryId), ConsistentRead: true }));
  if (!Item || Item.status !== 'pending' || integer(Item.attempts) !== attempt - 1) return 'done';
  const live = integer(Item.relay_attempt) === attempt && integer(Item.relay_hop) === hop + 1 && Item.relay_sent === false;
  return live ? 'held' : 'done';
}

export async function relaySent(tenantId: string, deliveryId: string, attempt: number, hop: number): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(tenantId, deliveryId),
        UpdateExpression: 'SET relay_sent = :true',
        ConditionExpression: 'relay_attempt = :a AND relay_hop = :next',
        ExpressionAttributeValues: { ':true': true, ':a': attempt, ':next': hop + 1 },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Records the outcome of a claimed attempt, conditional on still holding the lease, and writes its attempt log
 * item. False when the lease was lost (another copy took over; the log is written anyway).
 */
export async function completeAttempt(
  tenantId: string,
  deliveryId: string,
  attempt: number,
  token: string,
  outcome: { readonly status: DeliveryStatus; readonly nextDueAt: string | null; readonly at: Date },
  log: AttemptLog | null,
): Promise<boolean> {
  const update: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: keys.webhookDelivery(tenantId, deliveryId),
      UpdateExpression: 'SET #s = :s, attempts = :n, next_due_at = :due, last_attempt_at = :at, lease_token = :null, lease_until = :null',
      ConditionExpression: 'lease_token = :t',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: {
        ':s': outcome.status,
        ':n': attempt,
        ':due': outcome.nextDueAt,
        ':at': outcome.at.toISOString(),
        ':null': null,
        ':t': token,
      },
    },
  };
  // Two writes side by side rather than a transaction (half the latency on the hot path): a crash between them
  // loses at most a log line or repeats the attempt, never a delivery.
  const [recorded] = await Promise.all([
    db()
      .send(new UpdateCommand(update.Update as ConstructorParameters<typeof UpdateCommand>[0]))
      .then(
        () => true,
        (error: unknown) => {
          if (isConditionFailure(error)) return false;
          throw error;
        },
      ),
    log ? db().send(new PutCommand(attemptLogItem(log, outcome.at).Put as ConstructorParameters<typeof PutCommand>[0])) : Promise.resolve(),
  ]);
  return recorded;
}

/* ------------------------------------------------------------------ attempt log ---------------------------- */

export interface AttemptLog {
  readonly tenantId: string;
  readonly deliveryId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly webhookId: string;
  readonly url: string;
  readonly attempt: number;
  readonly at: string;
  readonly requestBody: string;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly responseExcerpt: string;
  readonly error: string | null;
  readonly succeeded: boolean;
}

function attemptLogItem(log: AttemptLog, now: Date): TransactItem & { Put: NonNullable<TransactItem['Put']> } {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.webhookAttempt(log.tenantId, log.at, log.deliveryId, log.attempt),
        type: 'webhook_attempt',
        tenant_id: log.tenantId,
        delivery_id: log.deliveryId,
        event_id: log.eventId,
        event_type: log.eventType,
        webhook_id: log.webhookId,
        url: log.url,
        attempt: log.attempt,
        at: log.at,
        request_body: log.requestBody,
        status_code: log.statusCode,
        latency_ms: String(log.latencyMs),
        response_excerpt: log.responseExcerpt,
        error: log.error,
        succeeded: log.succeeded,
        ttl: ttlAfterDays(now, DELIVERY_LOG_DAYS),
      },
    },
  };
}

const toAttemptLog = (item: Stored): AttemptLog => ({
  tenantId: item.tenant_id as string,
  deliveryId: item.delivery_id as string,
  eventId: item.event_id as string,
  eventType: item.event_type as string,
  webhookId: item.webhook_id as string,
  url: item.url as string,
  attempt: integer(item.attempt),
  at: item.at as string,
  requestBody: item.request_body as string,
  statusCode: item.status_code === null || item.status_code === undefined ? null : integer(item.status_code),
  latencyMs: Number(item.latency_ms),
  responseExcerpt: (item.response_excerpt as string | undefined) ?? '',
  error: (item.error as string | null | undefined) ?? null,
  succeeded: item.succeeded === true,
});

/** Attempts since `since`, newest first; `cursor` is the sort key to continue after. */
export async function listAttemptLogs(
  tenantId: string,
  since: Date,
  limit: number,
  cursor: string | null,
): Promise<{ items: AttemptLog[]; next: string | null }> {
  const pk = keys.webhookSettings(tenantId).pk;
  const { Items, LastEvaluatedKey } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': keys.webhookAttemptSk(since.toISOString()), ':to': `${keys.webhookAttemptPrefix}\uffff` },
      ScanIndexForward: false,
      Limit: limit,
      ...(cursor ? { ExclusiveStartKey: { pk, sk: cursor } } : {}),
    }),
  );
  return { items: (Items ?? []).map(toAttemptLog), next: LastEvaluatedKey ? (LastEvaluatedKey.sk as string) : null };
}
