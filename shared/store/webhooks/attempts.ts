import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { DELIVERY_LOG_DAYS } from '../../domain/webhooks.js';
import type { AttemptLog } from '../../domain/webhooks.js';
import type { AttemptLogRepository } from '../../usecases/webhooks/ports.js';
import { db, tableName } from '../client.js';
import { keys } from '../keys.js';
import { decimalText } from '../values.js';
import { deliveryRefFields, optionalText, packBody, storedBody, storedInteger, ttlAfterDays, webhookIdAttribute } from './common.js';

/**
 * The attempt log (`WHLOG#<at>#<delivery>#<n>`, TTL 30 days): one item per attempt, listed newest first; the request
 * body packed and the delivery id only in the sk, as on the delivery item.
 */

const AttemptItem = lazySchema(() =>
  z
    .object({
      ...deliveryRefFields(),
      url: z.string(),
      attempt: storedInteger(),
      at: z.string(),
      request_body: storedBody(),
      status_code: z.unknown(),
      latency_ms: z.unknown().transform((value) => Number(decimalText(value))),
      response_excerpt: z.string().optional(),
      error: optionalText(),
      succeeded: z.unknown().transform((value) => value === true),
    })
    .transform((item): AttemptLog => ({
      tenantId: item.tenant_id,
      deliveryId: item.delivery_id ?? keys.webhookAttemptDeliveryIdOf(item.sk),
      eventId: item.event_id,
      eventType: item.event_type,
      webhookId: item.webhook_id ?? item.event_id,
      url: item.url,
      attempt: item.attempt,
      at: item.at,
      requestBody: item.request_body,
      statusCode: item.status_code === null || item.status_code === undefined ? null : storedInteger().parse(item.status_code),
      latencyMs: item.latency_ms,
      responseExcerpt: item.response_excerpt ?? '',
      error: item.error,
      succeeded: item.succeeded,
    })),
);

export const dynamoWebhookAttempts: AttemptLogRepository = {
  async add(log) {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookAttempt(log.tenantId, log.at, log.deliveryId, log.attempt),
          type: 'webhook_attempt',
          tenant_id: log.tenantId,
          event_id: log.eventId,
          event_type: log.eventType,
          ...webhookIdAttribute(log.webhookId, log.eventId),
          url: log.url,
          attempt: log.attempt,
          at: log.at,
          request_body: packBody(log.requestBody),
          status_code: log.statusCode,
          latency_ms: String(log.latencyMs),
          response_excerpt: log.responseExcerpt,
          error: log.error,
          succeeded: log.succeeded,
          ttl: ttlAfterDays(new Date(log.at), DELIVERY_LOG_DAYS),
        },
      }),
    );
  },

  async list(tenantId, since, limit, after) {
    const pk = keys.webhookSettings(tenantId).pk;
    const { Items, LastEvaluatedKey } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': keys.webhookAttemptSk(since.toISOString()), ':to': `${keys.webhookAttemptPrefix}\uffff` },
        ScanIndexForward: false,
        Limit: limit,
        // Built from a checked position, never from what a client sent: the start key is always in the tenant's partition.
        ...(after ? { ExclusiveStartKey: keys.webhookAttempt(tenantId, after.at, after.deliveryId, after.attempt) } : {}),
      }),
    );
    const items = (Items ?? []).map((item) => AttemptItem().parse(item));
    const last = items.at(-1);
    const next = LastEvaluatedKey && last ? { at: last.at, deliveryId: last.deliveryId, attempt: last.attempt } : null;
    return { items, next };
  },
};
