import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@gateway/client';
import type { WebhookEvent } from '@gateway/client';
import { WORKER_FUNCTIONS } from '../../../infra/definition.js';
import { webhooksRuntime } from '../../../shared/runtime/webhooks.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { routedApi } from '../refunds/support.js';
import { until } from '../webhooks/support.js';
import { webhookApp } from './servers/express.js';
import { webhookHandler } from './servers/lambda.js';
import { webhookServer } from './servers/node-http.js';
import { apiGatewayFront, listen, recording } from './support.js';
import type { Recorded, RecordingFront } from './support.js';

/**
 * Real deliveries from the local stack verified by the recipes of docs/client.md with `verifyWebhook` from
 * '@gateway/client': payments created and cancelled through the payments Lambda's handler; the table's stream ->
 * event-router -> SQS `webhook-delivery` -> the webhook-delivery worker -> the recipes on 127.0.0.1 (each behind a
 * front recording the raw request). Variant A (`payment_status_update`, envelope A) goes to the tenant's default
 * URL (the node:http recipe, the settings' secret) or the payment's callback_url (the Lambda recipe behind API
 * Gateway, the same secret); variant B (`payment.created`, `payment.failed`, envelope B) to a `payment.all`
 * subscription (the Express recipe, the subscription's whsec_ secret).
 */
type Event = WebhookEvent;

let stack: TestStack;
let call: ReturnType<typeof caller>;
let secretA: string;
let secretB: string;
const heard = { defaultUrl: [] as Event[], callback: [] as Event[], subscription: [] as Event[] };
let defaultUrl: RecordingFront;
let callback: RecordingFront;
let subscription: RecordingFront;

beforeAll(async () => {
  stack = await startTestStack(
    { http: false },
    { workers: WORKER_FUNCTIONS.filter((w) => w.name === 'event-router' || w.name === 'webhook-delivery'), stream: { pollIntervalMs: 100 } },
  );
  await putFixedRates();
  const a = await tenantWithToken('Client recipes');
  call = caller(routedApi(servingEth(), ['payments']), () => a.bearer);
  [defaultUrl, callback, subscription] = await Promise.all([recording(), recording(), recording()]);

  // The production webhook wiring from the stack's configuration (DynamoDB Local, the local KMS endpoint).
  const deps = webhooksRuntime();
  const actor = { tenantId: a.tenantId, credential: 'test' };
  secretA = (await createSettings(actor, { callback_url: defaultUrl.url }, new Date(), deps)).secret;
  secretB = (await createSubscription(actor, { url: subscription.url, event_types: ['payment.all'] }, new Date(), deps)).secret;
  // Each recipe as a merchant runs it, with the secret it was given.
  [defaultUrl.target, callback.target, subscription.target] = await Promise.all([
    listen(webhookServer(secretA, (e) => void heard.defaultUrl.push(e))),
    listen(apiGatewayFront(webhookHandler(secretA, (e) => void heard.callback.push(e)))),
    listen(createServer(webhookApp(secretB, (e) => void heard.subscription.push(e)))),
  ]);
});

afterAll(async () => {
  await stack?.stop();
  await Promise.all([defaultUrl, callback, subscription].map((r) => r?.close()));
});

/** The delivery of `event` about payment `id` that reached `front`, once it has. */
const delivered = (front: RecordingFront, event: string, id: string): Promise<Recorded> =>
  until(
    `${event} of ${id}`,
    () =>
      front.received.find((r) => {
        const body = JSON.parse(r.body.toString('utf8')) as { event: string; data: { transaction_id?: string } };
        return body.event === event && body.data.transaction_id === id;
      }),
    30_000,
  );

/** The headers of one signature style only. */
const xSignatureOnly = (h: IncomingHttpHeaders) => ({ 'x-signature': h['x-signature'] });
const standardOnly = (h: IncomingHttpHeaders) => ({
  'webhook-id': h['webhook-id'],
  'webhook-timestamp': h['webhook-timestamp'],
  'webhook-signature': h['webhook-signature'],
});

/** Why `verifyWebhook` refuses, or null when it accepts. */
async function refusal(body: Uint8Array, headers: Record<string, string | string[] | undefined>, secret: string): Promise<string | null> {
  try {
    await verifyWebhook(body, headers, secret);
    return null;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.code;
    throw err;
  }
}

/** A real delivery verifies in each signature style with its own secret, and not with the other variant's. */
async function verifiesInBothStyles(r: Recorded, secret: string, other: string): Promise<Event> {
  expect(r.answer.status).toBe(204);
  const asX = await verifyWebhook(r.body, xSignatureOnly(r.headers), secret);
  const asStandard = await verifyWebhook(r.body, standardOnly(r.headers), secret);
  expect(asStandard).toEqual(asX);
  expect(await refusal(r.body, xSignatureOnly(r.headers), other)).toBe('no_matching_signature');
  expect(await refusal(r.body, standardOnly(r.headers), other)).toBe('no_matching_signature');
  return asX;
}

async function createPayment(body: Record<string, unknown> = {}): Promise<string> {
  const made = await call('POST', '/payments/', { body: { amount: '25.5', currency: 'USDTERC20', ...body } });
  expect(made.status).toBe(201);
  return made.body.transaction_id as string;
}

it('a payment created and cancelled: payment.created and payment.failed verified by the Express recipe, payment_status_update by the node:http recipe', async () => {
  const id = await createPayment({ order_id: 'order-17' });
  const created = await delivered(subscription, 'payment.created', id);
  const createdEvent = await verifiesInBothStyles(created, secretB, secretA);

  expect((await call('POST', `/payments/${id}/cancel/`)).status).toBe(200);
  const statusRequest = await delivered(defaultUrl, 'payment_status_update', id);
  const statusEvent = await verifiesInBothStyles(statusRequest, secretA, secretB);
  const failed = await delivered(subscription, 'payment.failed', id);
  const failedEvent = await verifiesInBothStyles(failed, secretB, secretA);

  // What the recipes handed on: the events as verified, typed by their names.
  expect(heard.subscription.map((e) => e.event)).toEqual(expect.arrayContaining(['payment.created', 'payment.failed']));
  expect(heard.subscription).toEqual(expect.arrayContaining([createdEvent, failedEvent]));
  expect(heard.defaultUrl).toContainEqual(statusEvent);

  if (createdEvent.event !== 'payment.created') throw new Error(`not payment.created: ${createdEvent.event}`);
  expect([createdEvent.id, createdEvent.data.transaction_id, createdEvent.data.status, createdEvent.data.previous_status]).toEqual([
    created.headers['webhook-id'],
    id,
    'waiting',
    null,
  ]);
  // Amounts stay decimal strings.
  expect([createdEvent.data.price_amount, createdEvent.data.pay_currency]).toEqual(['25.5', 'USDTERC20']);
  if (statusEvent.event !== 'payment_status_update') throw new Error(`not payment_status_update: ${statusEvent.event}`);
  expect([statusEvent.data.transaction_id, statusEvent.data.status, statusEvent.data.previous_status]).toEqual([id, 'cancelled', 'waiting']);
  if (failedEvent.event !== 'payment.failed') throw new Error(`not payment.failed: ${failedEvent.event}`);
  expect([failedEvent.data.status, failedEvent.data.previous_status]).toEqual(['cancelled', 'waiting']);
});

it("a payment with a callback_url: its payment_status_update verified by the Lambda recipe behind API Gateway, with the settings' secret", async () => {
  const id = await createPayment({ callback_url: callback.url });
  expect((await call('POST', `/payments/${id}/cancel/`)).status).toBe(200);
  const statusRequest = await delivered(callback, 'payment_status_update', id);
  const statusEvent = await verifiesInBothStyles(statusRequest, secretA, secretB);
  expect(heard.callback).toContainEqual(statusEvent);
  if (statusEvent.event !== 'payment_status_update') throw new Error(`not payment_status_update: ${statusEvent.event}`);
  expect([statusEvent.data.transaction_id, statusEvent.data.status, statusEvent.data.previous_status]).toEqual([id, 'cancelled', 'waiting']);
  // The callback URL takes the payment's status updates: the default URL hears nothing of this payment.
  expect(defaultUrl.received.filter((r) => r.body.toString('utf8').includes(id))).toEqual([]);
});
