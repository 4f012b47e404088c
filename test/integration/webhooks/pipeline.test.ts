import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WORKER_FUNCTIONS } from '../../../infra/definition.js';
import { openPayment, transition } from '../../../shared/domain/payments.js';
import { outboxEvent, outboxPutItem } from '../../../shared/store/outbox.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { transactWrite } from '../../../shared/store/transact.js';
import { webhooksRuntime } from '../../../shared/runtime/webhooks.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import type { WebhookPorts } from '../../../shared/usecases/webhooks/ports.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { startReceiver, type Receiver, until } from './support.js';

/**
 * The whole pipeline on the local stack: an outbox item committed with a change → the table's stream →
 * event-router → SQS `webhook-delivery` → the webhook-delivery worker → a loopback receiver. Secrets go
 * through the local KMS endpoint.
 */
let stack: TestStack;
let receiver: Receiver;
let subscriber: Receiver;
let deps: WebhookPorts;

beforeAll(async () => {
  stack = await startTestStack(
    { http: false },
    { workers: WORKER_FUNCTIONS.filter((w) => w.name === 'event-router' || w.name === 'webhook-delivery'), stream: { pollIntervalMs: 100 } },
  );
  // The production wiring, built from the stack's configuration (DynamoDB Local, the local KMS endpoint).
  deps = webhooksRuntime();
  receiver = await startReceiver(() => 200);
  subscriber = await startReceiver(() => 200);
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await subscriber?.close();
});

it('a committed outbox event reaches the default URL (envelope A) and a matching subscription (envelope B), signed', async () => {
  const tenantId = randomUUID();
  const actor = { tenantId, credential: 'test' };
  const { secret } = await createSettings(actor, { callback_url: receiver.url }, new Date(), deps);
  const sub = await createSubscription(actor, { url: subscriber.url, event_types: ['payment.all'] }, new Date(), deps);

  const status = outboxEvent(tenantId, 'payment_status_update', {
    transaction_id: 't-1',
    status: 'completed',
    previous_status: 'confirmed',
    price_amount: '25.10',
  });
  const completed = outboxEvent(tenantId, 'payment.completed', { transaction_id: 't-1', amount: '25.10' });
  await transactWrite([outboxPutItem(status), outboxPutItem(completed)]);

  const a = await until('envelope A', () => receiver.received.find((r) => r.headers['webhook-id'] === status.eventId));
  expect(JSON.parse(a.body)).toEqual({ event: 'payment_status_update', data: status.payload, timestamp: status.occurredAt });
  expect(a.headers['x-signature']).toBe(createHmac('sha256', Buffer.from(secret, 'utf8')).update(a.body).digest('hex'));
  const b = await until('envelope B', () => subscriber.received.find((r) => r.headers['webhook-id'] === completed.eventId));
  expect(JSON.parse(b.body)).toEqual({ id: completed.eventId, event: 'payment.completed', created_at: completed.occurredAt, data: completed.payload });
  const h = b.headers;
  expect(() =>
    new Webhook(sub.secret).verify(b.body, {
      'webhook-id': String(h['webhook-id']),
      'webhook-timestamp': String(h['webhook-timestamp']),
      'webhook-signature': String(h['webhook-signature']),
    }),
  ).not.toThrow();
  // Only the matching destinations: no envelope B at the default URL, no envelope A at the subscription.
  expect(receiver.received.some((r) => r.headers['webhook-id'] === completed.eventId)).toBe(false);
  expect(subscriber.received.some((r) => r.headers['webhook-id'] === status.eventId)).toBe(false);
});

it("a payment's own writes carry its events: creation and cancellation reach the subscription once each, as the transitions announced them", async () => {
  const tenantId = randomUUID();
  const actor = { tenantId, credential: 'test' };
  await createSubscription(actor, { url: subscriber.url, event_types: ['payment.all'] }, new Date(), deps);
  const id = randomUUID();
  const t0 = new Date();
  const opened = openPayment(aPayment({ id, tenantId, address: `0x${id.replaceAll('-', '').padEnd(40, '0')}`, orderId: 'order-1' }, t0), t0);
  const created = await dynamoPayments.create({ change: opened, family: 'evm', dailyLimitUsd: null }, t0);
  const t1 = new Date(t0.getTime() + 1_000);
  const cancel = transition(created, { kind: 'cancel' }, t1);
  await dynamoPayments.save(created, cancel, t1);

  const expected = [...opened.events, ...cancel.events].filter((e) => e.type.startsWith('payment.'));
  expect(expected.map((e) => e.type)).toEqual(['payment.created', 'payment.failed']);
  const bodies = await until('both payment events', () => {
    const got = subscriber.received.filter((r) => String(r.headers['webhook-id']).startsWith(`payment:${id}:`));
    return got.length >= 2 ? got.map((r) => JSON.parse(r.body) as { id: string; event: string; data: unknown; created_at: string }) : undefined;
  });
  // Two writes, two messages: the queue and the delivery worker's parallel batches keep no order between them (a
  // receiver orders by created_at), so they are compared in the order they happened.
  bodies.sort((a, b) => a.created_at.localeCompare(b.created_at));
  expect(bodies.map((b) => [b.id, b.event, b.data, b.created_at])).toEqual(
    expected.map((e, i) => [`payment:${id}:${e.key}`, e.type, { ...e.payload, callback_url: null }, (i === 0 ? t0 : t1).toISOString()]),
  );
  // Once each: the stream record of each write is routed once, and nothing else announces them.
  await new Promise((r) => setTimeout(r, 1_000));
  expect(subscriber.received.filter((r) => String(r.headers['webhook-id']).startsWith(`payment:${id}:`))).toHaveLength(2);
});

it('every payment status change reaches a payment.all subscription, partially_paid included (issue 25, item 13)', async () => {
  const tenantId = randomUUID();
  const actor = { tenantId, credential: 'test' };
  await createSubscription(actor, { url: subscriber.url, event_types: ['payment.all'] }, new Date(), deps);
  const id = randomUUID();
  const t0 = new Date();
  const opened = openPayment(aPayment({ id, tenantId, address: `0x${id.replaceAll('-', '').padEnd(40, '0')}`, orderId: 'order-2' }, t0), t0);
  const created = await dynamoPayments.create({ change: opened, family: 'evm', dailyLimitUsd: null }, t0);
  // Less than asked arrives and confirms: waiting -> confirming -> partially_paid.
  const t1 = new Date(t0.getTime() + 1_000);
  const detected = transition(created, { kind: 'deposit', deposit: aDeposit('d1', '1', { currency: created.currency }, t1) }, t1);
  const confirming = await dynamoPayments.save(created, detected, t1);
  const t2 = new Date(t0.getTime() + 2_000);
  const partial = transition(confirming, { kind: 'confirmations', byDeposit: { d1: 20 }, confirmationsNeeded: 2, tolerancePercent: '0' }, t2);
  expect(partial.state.status).toBe('partially_paid');
  await dynamoPayments.save(confirming, partial, t2);

  const statuses = await until(
    'the three status changes',
    () => {
      const got = subscriber.received
        .filter((r) => String(r.headers['webhook-id']).startsWith(`payment:${id}:`))
        .map((r) => JSON.parse(r.body) as { event: string; created_at: string; data: { status: string } });
      return got.length >= 3 ? got : undefined;
    },
    20_000,
  );
  statuses.sort((a, b) => a.created_at.localeCompare(b.created_at));
  expect(statuses.map((b) => [b.event, b.data.status])).toEqual([
    ['payment.created', 'waiting'],
    ['payment.processing', 'confirming'],
    ['payment.processing', 'partially_paid'],
  ]);
});
