import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WORKER_FUNCTIONS } from '../../../infra/definition.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { webhooksRuntime } from '../../../shared/runtime/webhooks.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import { updateSettings } from '../../../shared/usecases/webhooks/update-settings.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { startReceiver, type Received, type Receiver, until } from '../webhooks/support.js';
import { paid as paidPayment, routedApi } from './support.js';

/**
 * Refund webhooks delivered end to end on the local stack: a refund created and cancelled through the refunds
 * Lambda's handler commits its events in its own transactions (the cancel of a refund with a withdrawal in the
 * withdrawal's); the table's stream -> event-router -> SQS `webhook-delivery` -> the webhook-delivery worker ->
 * loopback receivers. Variant A (`refund_status_update`, envelope A, X-Signature) goes to the payment's
 * callback_url when it has one, else to the tenant's default URL (its enabled_events taking the type); variant B
 * (`refund.created`, `refund.failed`, envelope B, Standard Webhooks signature) to a `refund.all` subscription.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let stack: TestStack;
let defaultUrl: Receiver;
let callback: Receiver;
let subscriber: Receiver;
let a: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let secretA: string;
let secretB: string;

beforeAll(async () => {
  stack = await startTestStack(
    { http: false },
    { workers: WORKER_FUNCTIONS.filter((w) => w.name === 'event-router' || w.name === 'webhook-delivery'), stream: { pollIntervalMs: 100 } },
  );
  await putFixedRates();
  [defaultUrl, callback, subscriber] = await Promise.all([startReceiver(() => 200), startReceiver(() => 200), startReceiver(() => 200)]);
  a = await tenantWithToken('Refund webhooks');
  const cfg = servingEth({ PUBLIC_BASE_URL: 'https://pay.example.com', HOT_WALLET_KEY_ID: 'hot-wallet-key' });
  const handler: Handler = routedApi(cfg, ['payments', 'refunds']);
  call = caller(handler, () => a.bearer);

  // The production webhook wiring from the stack's configuration (DynamoDB Local, the local KMS endpoint).
  const deps = webhooksRuntime();
  const actor = { tenantId: a.tenantId, credential: 'test' };
  secretA = (await createSettings(actor, { callback_url: defaultUrl.url }, new Date(), deps)).secret;
  await updateSettings(actor, { enabled_events: ['payment_status_update', 'refund_status_update'] }, new Date(), deps);
  secretB = (await createSubscription(actor, { url: subscriber.url, event_types: ['refund.all'] }, new Date(), deps)).secret;
});

afterAll(async () => {
  await stack?.stop();
  await Promise.all([defaultUrl?.close(), callback?.close(), subscriber?.close()]);
});

/** A 100 USDTERC20 payment (1 % fee, the merchant's) that received 120 and completed: credited 119. */
const paid = (callbackUrl: string | null): Promise<PaymentState> =>
  paidPayment({ tenantId: a.tenantId, call }, '120', callbackUrl ? { callback_url: callbackUrl } : {});

const arrived = (receiver: Receiver, eventId: string) => until(eventId, () => receiver.received.find((r) => r.headers['webhook-id'] === eventId), 30_000);

/** Envelope A, signed with the tenant's variant-A secret (X-Signature: HMAC-SHA256 of the body, hex). */
function envelopeA(r: Received): { event: string; data: Record<string, unknown>; timestamp: string } {
  expect(r.headers['x-signature']).toBe(createHmac('sha256', Buffer.from(secretA, 'utf8')).update(r.body).digest('hex'));
  return JSON.parse(r.body) as { event: string; data: Record<string, unknown>; timestamp: string };
}

/** Envelope B, its Standard Webhooks signature checked with the subscription's secret. */
function envelopeB(r: Received): { id: string; event: string; data: Record<string, unknown> } {
  const h = r.headers;
  const headers = {
    'webhook-id': String(h['webhook-id']),
    'webhook-timestamp': String(h['webhook-timestamp']),
    'webhook-signature': String(h['webhook-signature']),
  };
  expect(() => new Webhook(secretB).verify(r.body, headers)).not.toThrow();
  expect(() => new Webhook(`whsec_${Buffer.from('another secret of 24 bytes!!').toString('base64')}`).verify(r.body, headers)).toThrow();
  return JSON.parse(r.body) as { id: string; event: string; data: Record<string, unknown> };
}

it('a refund of a payment with a callback_url: refund.created to the subscription, refund_status_update to the callback_url; cancelled, refund.failed', async () => {
  const p = await paid(callback.url);
  const made = await call('POST', `/payments/${p.id}/refunds/`, { body: { address: DEST, reason: 'returned' } });
  expect([made.status, made.body.status]).toEqual([201, 'pending']);
  const id = made.body.id as string;

  const created = envelopeB(await arrived(subscriber, `refund:${id}:refund.created`));
  expect(created).toMatchObject({ id: `refund:${id}:refund.created`, event: 'refund.created' });
  expect(created.data).toMatchObject({
    refund_id: id,
    payment_id: p.id,
    status: 'pending',
    previous_status: null,
    amount: '20',
    network_fee: '3',
    reason: 'returned',
  });

  const status = envelopeA(await arrived(callback, `refund:${id}:status:pending`));
  expect(status.event).toBe('refund_status_update');
  expect(status.data).toMatchObject({ refund_id: id, payment_id: p.id, status: 'pending', amount: '20', address: DEST });
  // The callback URL is where it goes, not what it says.
  expect(status.data).not.toHaveProperty('callback_url');

  const cancelled = await call('POST', `/refunds/${id}/cancel/`);
  expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
  const failed = envelopeB(await arrived(subscriber, `refund:${id}:refund.failed`));
  expect([failed.event, failed.data.status, failed.data.previous_status]).toEqual(['refund.failed', 'cancelled', 'pending']);
  expect(envelopeA(await arrived(callback, `refund:${id}:status:cancelled`)).data).toMatchObject({ refund_id: id, status: 'cancelled' });

  // Each to its own destination: the default URL hears nothing of a refund whose payment has a callback_url, the
  // subscription no envelope A, the callback_url no envelope B.
  expect(defaultUrl.received.filter((r) => String(r.headers['webhook-id']).startsWith(`refund:${id}:`))).toEqual([]);
  expect(subscriber.received.filter((r) => String(r.headers['webhook-id']).startsWith(`refund:${id}:status:`))).toEqual([]);
  expect(callback.received.filter((r) => String(r.headers['webhook-id']).startsWith(`refund:${id}:refund.`))).toEqual([]);
});

it('a refund of a payment without a callback_url: refund_status_update to the default URL (enabled_events), refund.created to the subscription', async () => {
  const p = await paid(null);
  const made = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20' } });
  expect([made.status, made.body.status]).toEqual([201, 'awaiting_address']);
  const id = made.body.id as string;

  const status = envelopeA(await arrived(defaultUrl, `refund:${id}:status:awaiting_address`));
  expect([status.event, status.data.refund_id, status.data.status, status.data.payment_id]).toEqual(['refund_status_update', id, 'awaiting_address', p.id]);
  const created = envelopeB(await arrived(subscriber, `refund:${id}:refund.created`));
  expect([created.event, created.data.status]).toEqual(['refund.created', 'awaiting_address']);

  const cancelled = await call('POST', `/refunds/${id}/cancel/`);
  expect(cancelled.status).toBe(200);
  expect(envelopeB(await arrived(subscriber, `refund:${id}:refund.failed`)).data).toMatchObject({ refund_id: id, status: 'cancelled' });
  expect(envelopeA(await arrived(defaultUrl, `refund:${id}:status:cancelled`)).data).toMatchObject({ refund_id: id, status: 'cancelled' });
});
