import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { newDelivery } from '../../../shared/domain/webhooks.js';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { dynamoWebhookAttempts } from '../../../shared/store/webhooks/attempts.js';
import { dynamoWebhookDeliveries } from '../../../shared/store/webhooks/deliveries.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';

/**
 * Delivery and attempt-log items as stored: the body packed, the delivery id only in the sk, the webhook id only when
 * it is not the event id; and items written before (body as text, every id an attribute) read as they always did.
 */
let table: TestTable;
const T = randomUUID();
const now = new Date('2026-11-20T12:00:00.000Z');
const body = JSON.stringify({
  event: 'payment_status_update',
  data: { transaction_id: randomUUID(), status: 'completed', note: 'é✓' },
  timestamp: now.toISOString(),
});

beforeAll(async () => {
  table = await startTestTable('webhook-stored-items');
});
afterAll(async () => {
  await table?.stop();
});

const raw = async (key: { pk: string; sk: string }) => (await db().send(new GetCommand({ TableName: tableName(), Key: key }))).Item ?? {};

describe('webhook items on the table', () => {
  it('store a packed body and no copy of the ids, and read back whole (a redelivery keeps its webhook id)', async () => {
    const eventId = `payment:${randomUUID()}:status:4:completed`;
    const base = {
      tenantId: T,
      eventId,
      eventType: 'payment_status_update',
      destination: { kind: 'default' as const, url: 'https://shop.example/hook' },
      body,
    };
    const first = newDelivery({ ...base, deliveryId: `${eventId}.a`, webhookId: eventId }, now);
    const again = newDelivery({ ...base, deliveryId: `${eventId}.a.r1`, webhookId: `${eventId}.orig` }, now);
    for (const d of [first, again]) expect(await dynamoWebhookDeliveries.create(d, now)).toBe(true);
    const item = await raw(keys.webhookDelivery(T, first.deliveryId));
    expect(item.body).toBeInstanceOf(Uint8Array);
    expect([item.delivery_id, item.webhook_id]).toEqual([undefined, undefined]);
    expect((await raw(keys.webhookDelivery(T, again.deliveryId))).webhook_id).toBe(`${eventId}.orig`);
    expect(await dynamoWebhookDeliveries.get(T, first.deliveryId)).toEqual(first);
    expect(await dynamoWebhookDeliveries.get(T, again.deliveryId)).toEqual(again);

    const log = {
      tenantId: T,
      deliveryId: again.deliveryId,
      eventId,
      eventType: 'payment_status_update',
      webhookId: again.webhookId,
      url: 'https://shop.example/hook',
      attempt: 2,
      at: now.toISOString(),
      requestBody: body,
      statusCode: 200,
      latencyMs: 12.5,
      responseExcerpt: 'ok',
      error: null,
      succeeded: true,
    };
    await dynamoWebhookAttempts.add(log);
    expect((await raw(keys.webhookAttempt(T, log.at, log.deliveryId, 2))).request_body).toBeInstanceOf(Uint8Array);
    expect((await dynamoWebhookAttempts.list(T, new Date(0), 10, null)).items).toEqual([log]);
  });

  it('read the items written before, whose body is text and which name every id', async () => {
    const tenantId = randomUUID();
    const eventId = `payment:${randomUUID()}:created`;
    const deliveryId = `${eventId}.a`;
    const at = now.toISOString();
    const ref = { tenant_id: tenantId, delivery_id: deliveryId, event_id: eventId, event_type: 'payment.created', webhook_id: eventId };
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookDelivery(tenantId, deliveryId),
          type: 'webhook_delivery',
          ...ref,
          destination: { kind: 'default', url: 'https://shop.example/hook' },
          body,
          status: 'succeeded',
          attempts: 1,
          created_at: at,
          next_due_at: null,
          lease_token: null,
          lease_until: null,
          ttl: 1,
        },
      }),
    );
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookAttempt(tenantId, at, deliveryId, 1),
          type: 'webhook_attempt',
          ...ref,
          url: 'https://shop.example/hook',
          attempt: 1,
          at,
          request_body: body,
          status_code: 200,
          latency_ms: '3',
          response_excerpt: 'ok',
          error: null,
          succeeded: true,
          ttl: 1,
        },
      }),
    );
    expect(await dynamoWebhookDeliveries.get(tenantId, deliveryId)).toMatchObject({ deliveryId, eventId, webhookId: eventId, body, status: 'succeeded' });
    expect((await dynamoWebhookAttempts.list(tenantId, new Date(0), 10, null)).items).toMatchObject([
      { deliveryId, eventId, webhookId: eventId, requestBody: body },
    ]);
  });
});
