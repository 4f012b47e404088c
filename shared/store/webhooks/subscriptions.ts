import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { SUBSCRIPTION_STATUSES } from '../../domain/webhooks.js';
import type { Subscription } from '../../domain/webhooks.js';
import type { WebhookSubscriptionRepository } from '../../usecases/webhooks/ports.js';
import { db, tableName } from '../client.js';
import { keys } from '../keys.js';
import type { TransactItem } from '../transact.js';
import { transactWrite, TransactionConditionError } from '../transact.js';
import { integer } from '../values.js';
import { isConditionalCheckFailed } from '../transact.js';
import { optionalText, securityEventItem, storedInteger } from './common.js';

/**
 * Variant-B subscriptions (`WEBHOOK#<id>`), each with a per-URL guard item (`WEBHOOK_URL#<sha256>`) and the
 * tenant's count (`WEBHOOK_COUNT`), created and deleted together in one transaction with the security event.
 */

const SubscriptionItem = lazySchema(() =>
  z
    .object({
      tenant_id: z.string(),
      webhook_id: z.string(),
      url: z.string(),
      url_hash: z.string(),
      event_types: z.array(z.string()),
      status: z.enum(SUBSCRIPTION_STATUSES),
      created_at: z.string(),
      last_triggered_at: optionalText(),
      failure_count: storedInteger(),
      secret_cipher: z.string(),
      secret_hint: z.string(),
      description: optionalText(),
      slow_until: optionalText(),
    })
    .transform((item): Subscription => ({
      tenantId: item.tenant_id,
      id: item.webhook_id,
      url: item.url,
      urlHash: item.url_hash,
      eventTypes: item.event_types,
      status: item.status,
      createdAt: item.created_at,
      lastTriggeredAt: item.last_triggered_at,
      failureCount: item.failure_count,
      secretCipher: item.secret_cipher,
      secretHint: item.secret_hint,
      description: item.description,
      slowUntil: item.slow_until,
    })),
);

/** Index of each item in the create transaction, to tell which condition failed. */
const CREATE_ITEMS = { count: 0, urlGuard: 1, subscription: 2 } as const;

function createItems(sub: Subscription, maxPerTenant: number): TransactItem[] {
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

function deleteItems(sub: Subscription): TransactItem[] {
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

export const dynamoWebhookSubscriptions: WebhookSubscriptionRepository = {
  async get(tenantId, id) {
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookSubscription(tenantId, id) }));
    return Item ? SubscriptionItem().parse(Item) : null;
  },

  async list(tenantId) {
    const prefix = keys.webhookSubscriptionPrefix(tenantId);
    const { Items } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': prefix.pk, ':p': prefix.skPrefix },
      }),
    );
    return (Items ?? []).map((item) => SubscriptionItem().parse(item)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

  async create(sub, maxPerTenant, change) {
    try {
      await transactWrite([...createItems(sub, maxPerTenant), securityEventItem(change)]);
      return 'created';
    } catch (error) {
      if (error instanceof TransactionConditionError) {
        if (error.failedIndexes.includes(CREATE_ITEMS.urlGuard)) return 'duplicate_url';
        if (error.failedIndexes.includes(CREATE_ITEMS.count)) return 'limit_reached';
      }
      throw error;
    }
  },

  async delete(sub, change) {
    try {
      await transactWrite([...deleteItems(sub), securityEventItem(change)]);
      return true;
    } catch (error) {
      if (error instanceof TransactionConditionError) return false;
      throw error;
    }
  },

  async recordAttempt(tenantId, id, succeeded, at, failureLimit) {
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
      if (!isConditionalCheckFailed(error)) throw error;
    }
  },

  async markSlow(tenantId, id, until) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookSubscription(tenantId, id),
          UpdateExpression: until ? 'SET slow_until = :u' : 'REMOVE slow_until',
          ConditionExpression: 'attribute_exists(pk)',
          ...(until ? { ExpressionAttributeValues: { ':u': until.toISOString() } } : {}),
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  },
};
