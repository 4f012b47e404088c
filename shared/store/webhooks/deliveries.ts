import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { DELIVERY_LOG_DAYS, DELIVERY_STATUSES } from '../../domain/webhooks.js';
import type { Delivery } from '../../domain/webhooks.js';
import type { WebhookDeliveryRepository } from '../../usecases/webhooks/ports.js';
import { db, tableName } from '../client.js';
import { keys } from '../keys.js';
import { integer } from '../values.js';
import { isConditionalCheckFailed } from '../transact.js';
import { deliveryRefFields, optionalText, packBody, storedBody, storedInteger, ttlAfterDays, webhookIdAttribute } from './common.js';

/**
 * Deliveries (`WHDELIVERY#<delivery id>`, TTL 30 days): one per event and destination, keyed by that natural id
 * and created conditionally (the body packed, the delivery id only in the sk: under 1 KB, one write unit, for a
 * payment's events); attempts are claimed with a lease and relays of early messages are guarded, so
 * copies of a queue message never send twice after a recorded success.
 */

const DestinationItem = lazySchema(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('callback'), url: z.string() }),
    z.object({ kind: z.literal('default'), url: z.string() }),
    z.object({ kind: z.literal('subscription'), url: z.string(), subscriptionId: z.string() }),
  ]),
);

const DeliveryItem = lazySchema(() =>
  z
    .object({
      ...deliveryRefFields(),
      destination: DestinationItem(),
      body: storedBody(),
      status: z.enum(DELIVERY_STATUSES),
      attempts: storedInteger(),
      created_at: z.string(),
      next_due_at: optionalText(),
      lease_token: optionalText(),
      lease_until: optionalText(),
    })
    .transform((item): Delivery => ({
      tenantId: item.tenant_id,
      deliveryId: item.delivery_id ?? keys.webhookDeliveryIdOf(item.sk),
      eventId: item.event_id,
      eventType: item.event_type,
      webhookId: item.webhook_id ?? item.event_id,
      destination: item.destination,
      body: item.body,
      status: item.status,
      attempts: item.attempts,
      createdAt: item.created_at,
      nextDueAt: item.next_due_at,
      leaseToken: item.lease_token,
      leaseUntil: item.lease_until,
    })),
);

export const readDelivery = (item: Record<string, unknown>): Delivery => DeliveryItem().parse(item);

async function load(tenantId: string, deliveryId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookDelivery(tenantId, deliveryId), ConsistentRead: true }));
  return Item;
}

export const dynamoWebhookDeliveries: WebhookDeliveryRepository = {
  async create(delivery, now, options) {
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.webhookDelivery(delivery.tenantId, delivery.deliveryId),
            type: 'webhook_delivery',
            tenant_id: delivery.tenantId,
            event_id: delivery.eventId,
            event_type: delivery.eventType,
            ...webhookIdAttribute(delivery.webhookId, delivery.eventId),
            destination: delivery.destination,
            body: packBody(delivery.body),
            status: delivery.status,
            attempts: delivery.attempts,
            created_at: delivery.createdAt,
            next_due_at: delivery.nextDueAt,
            // Created already claimed (the first attempt sent by the worker that plans it), or free.
            ...(delivery.leaseToken !== null ? { lease_token: delivery.leaseToken, lease_until: delivery.leaseUntil } : {}),
            // A redelivery (accepted with 202) waits in the reconciler's work queue until its first attempt is made.
            ...(options?.awaitsFirstAttempt ? keys.redeliveryQueue(delivery.createdAt, delivery.tenantId, delivery.deliveryId) : {}),
            ttl: ttlAfterDays(now, DELIVERY_LOG_DAYS),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  },

  async get(tenantId, deliveryId) {
    const item = await load(tenantId, deliveryId);
    return item ? readDelivery(item) : null;
  },

  async claimAttempt(tenantId, deliveryId, attempt, token, now, leaseUntil, handedOver) {
    const free = 'attribute_not_exists(lease_until) OR lease_until = :null OR lease_until < :now';
    try {
      const { Attributes } = await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookDelivery(tenantId, deliveryId),
          UpdateExpression: 'SET lease_token = :t, lease_until = :until',
          // A hand-over from the first lane takes over the lease it names (the first lane holds it no more).
          ConditionExpression: `#s = :pending AND attempts = :prev AND (${free}${handedOver ? ' OR lease_token = :h' : ''})`,
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: {
            ':t': token,
            ':until': leaseUntil.toISOString(),
            ':pending': 'pending',
            ':prev': attempt - 1,
            ':null': null,
            ':now': now.toISOString(),
            ...(handedOver ? { ':h': handedOver } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? readDelivery(Attributes) : null;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return null;
      throw error;
    }
  },

  async claimRelay(tenantId, deliveryId, attempt, hop, now, leaseUntil) {
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
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const item = await load(tenantId, deliveryId);
    if (!item || item.status !== 'pending' || integer(item.attempts) !== attempt - 1) return 'done';
    const live = integer(item.relay_attempt) === attempt && integer(item.relay_hop) === hop + 1 && item.relay_sent === false;
    return live ? 'held' : 'done';
  },

  async relaySent(tenantId, deliveryId, attempt, hop) {
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
      if (!isConditionalCheckFailed(error)) throw error;
    }
  },

  async completeAttempt(tenantId, deliveryId, attempt, token, outcome) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookDelivery(tenantId, deliveryId),
          UpdateExpression:
            'SET #s = :s, attempts = :n, next_due_at = :due, last_attempt_at = :at, lease_token = :null, lease_until = :null REMOVE gsi3pk, gsi3sk',
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
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  },
};
