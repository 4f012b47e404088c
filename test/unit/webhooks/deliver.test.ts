import { createHmac, randomUUID } from 'node:crypto';
import { changeMessageBody, deliveryMessageBody, MAX_QUEUE_DELAY_SECONDS, RETRY_DELAYS_SECONDS } from '../../../shared/domain/webhooks.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import { signatureHeaders } from '../../../shared/usecases/webhooks/signing.js';
import { DeliveryMessage, handleWebhookMessage, LEASE_MS, subscriptionDeliveryId, variantADeliveryId } from '../../../shared/usecases/webhooks/deliver.js';
import { METRIC_NAMES, METRIC_NAMESPACES } from '../../../shared/observability/metrics.js';
import type { FakeWebhooks } from '../../support/fakes/webhooks.js';
import { fakeWebhooks, ScriptedSender } from '../../support/fakes/webhooks.js';

/**
 * Planning and sending against the in-memory ports with a virtual clock and a scripted receiver: success,
 * failure with the retry schedule, the relay of delays over SQS's 900 s, and a subscription turning inactive.
 */
const actor = { tenantId: 't-1', credential: 'test' };

function eventBody(f: FakeWebhooks, type: string, payload: Record<string, unknown> = { transaction_id: 'p-1', status: 'completed' }) {
  const eventId = randomUUID();
  return { eventId, body: JSON.stringify({ event_id: eventId, tenant_id: actor.tenantId, type, occurred_at: f.clock.now().toISOString(), payload }) };
}

/** Hands every queued message to the worker once it is due (moving the virtual clock), until none is left. */
async function drain(f: FakeWebhooks): Promise<void> {
  const queued: { body: string; visibleAt: number }[] = [];
  for (let step = 0; step < 1000; step++) {
    queued.push(...f.queue.take().map((m) => ({ body: m.body, visibleAt: f.clock.now().getTime() + m.delaySeconds * 1000 })));
    queued.sort((a, b) => a.visibleAt - b.visibleAt);
    const next = queued.shift();
    if (!next) return;
    if (next.visibleAt > f.clock.now().getTime()) f.clock.set(next.visibleAt);
    if ((await handleWebhookMessage(next.body, f.deps)) === 'retry') queued.push({ body: next.body, visibleAt: f.clock.now().getTime() + 60_000 });
  }
  throw new Error('queue does not drain');
}

describe('deliver', () => {
  it('plans envelope A to the default URL, signs it and records the success and its attempt', async () => {
    const f = fakeWebhooks();
    const { secret } = await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    const { eventId, body } = eventBody(f, 'payment_status_update');
    // The event's message plans the delivery and sends its first attempt: nothing goes back to the queue.
    expect(await handleWebhookMessage(body, f.deps)).toBe('done');
    expect(f.queue.sent).toEqual([]);

    expect(f.sender.requests).toHaveLength(1);
    const request = f.sender.requests[0];
    expect(request?.url).toBe('https://hooks.example.com/a');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      event: 'payment_status_update',
      data: { transaction_id: 'p-1', status: 'completed' },
      timestamp: expect.any(String),
    });
    expect(request?.headers['webhook-id']).toBe(eventId);
    expect(request?.headers['X-Signature']).toBe(
      createHmac('sha256', Buffer.from(secret, 'utf8'))
        .update(request?.body ?? '')
        .digest('hex'),
    );
    expect(await f.deliveries.get('t-1', variantADeliveryId(eventId))).toMatchObject({ status: 'succeeded', attempts: 1, leaseToken: null });
    expect(f.attempts.items).toEqual([
      expect.objectContaining({ deliveryId: variantADeliveryId(eventId), attempt: 1, statusCode: 200, succeeded: true, error: null }),
    ]);

    // The same event again (the router replays): nothing is sent twice.
    await handleWebhookMessage(body, f.deps);
    await drain(f);
    expect(f.sender.requests).toHaveLength(1);
  });

  it("prints each attempt's outcome (1 answered 2xx, else 0) and latency, without dimensions", async () => {
    const f = fakeWebhooks({ sender: new ScriptedSender(503, 200) });
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    await handleWebhookMessage(eventBody(f, 'payment_status_update').body, f.deps);
    await drain(f);
    expect(f.sender.requests).toHaveLength(2);
    expect(f.metrics).toEqual(
      [0, 1].map((ok) => ({
        namespace: METRIC_NAMESPACES.webhooks,
        dimensions: {},
        values: { [METRIC_NAMES.webhookAttemptSucceeded]: ok, [METRIC_NAMES.webhookAttemptLatency]: 1 },
      })),
    );
  });

  it('retries a failing receiver on the schedule (delays over 900 s relayed) and fails the delivery after the fifth retry', async () => {
    const f = fakeWebhooks({ sender: new ScriptedSender(503, null, 500) });
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    const { eventId, body } = eventBody(f, 'deposit_received');
    const start = f.clock.now().getTime();
    const sentAt: number[] = [];
    const send = f.deps.webhookSender;
    const deps = { ...f.deps, webhookSender: async (r: Parameters<typeof send>[0]) => (sentAt.push(f.clock.now().getTime()), send(r)) };
    await handleWebhookMessage(body, deps);
    const queued: { body: string; visibleAt: number }[] = [];
    const delays: number[] = [];
    for (let step = 0; step < 100; step++) {
      const taken = f.queue.take();
      delays.push(...taken.map((m) => m.delaySeconds));
      queued.push(...taken.map((m) => ({ body: m.body, visibleAt: f.clock.now().getTime() + m.delaySeconds * 1000 })));
      queued.sort((a, b) => a.visibleAt - b.visibleAt);
      const next = queued.shift();
      if (!next) break;
      f.clock.set(Math.max(next.visibleAt, f.clock.now().getTime()));
      await handleWebhookMessage(next.body, deps);
    }
    let sum = 0;
    expect(sentAt.map((t) => (t - start) / 1000)).toEqual([0, ...RETRY_DELAYS_SECONDS.map((d) => (sum += d))]);
    expect(Math.max(...delays)).toBe(MAX_QUEUE_DELAY_SECONDS);
    const delivery = await f.deliveries.get('t-1', variantADeliveryId(eventId));
    expect([delivery?.status, delivery?.attempts, delivery?.nextDueAt]).toEqual(['failed', 6, null]);
    expect(f.attempts.items.map((a) => [a.attempt, a.statusCode, a.succeeded])).toEqual([
      [1, 503, false],
      [2, null, false],
      [3, 500, false],
      [4, 500, false],
      [5, 500, false],
      [6, 500, false],
    ]);
    expect(f.attempts.items.map((a) => a.error)).toEqual(['HTTP 503', 'timeout after 10000 ms', 'HTTP 500', 'HTTP 500', 'HTTP 500', 'HTTP 500']);
  });

  it('schedules the next attempt before recording a failure, due one minute later', async () => {
    const f = fakeWebhooks({ sender: new ScriptedSender(500) });
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    const { eventId, body } = eventBody(f, 'deposit_received');
    const recorded: string[] = [];
    const complete = f.deliveries.completeAttempt.bind(f.deliveries);
    const deps = {
      ...f.deps,
      webhookDeliveries: Object.assign(Object.create(f.deliveries) as typeof f.deliveries, {
        completeAttempt: (...args: Parameters<typeof complete>) => {
          recorded.push(`recorded with ${f.queue.sent.length} message(s) queued`);
          return complete(...args);
        },
      }),
    };
    await handleWebhookMessage(body, deps);
    expect(recorded).toEqual(['recorded with 1 message(s) queued']);
    const [second] = f.queue.take();
    expect(second?.delaySeconds).toBe(60);
    const message = DeliveryMessage().parse(JSON.parse(second?.body ?? '{}'));
    expect(message).toMatchObject({ delivery_id: variantADeliveryId(eventId), attempt: 2, due_at: new Date(f.clock.now().getTime() + 60_000).toISOString() });
    expect(await f.deliveries.get('t-1', variantADeliveryId(eventId))).toMatchObject({ status: 'pending', attempts: 1, nextDueAt: message.due_at });
    // The event again (the router replays it) finds attempt 1 recorded: nothing is sent or queued.
    expect(await handleWebhookMessage(body, f.deps)).toBe('done');
    expect(f.sender.requests).toHaveLength(1);
    expect(f.queue.sent).toEqual([]);
    // A copy of an attempt-1 message (a redelivery handed back twice) finds it recorded and is dropped.
    const attempt1 = deliveryMessageBody({ tenant_id: 't-1', delivery_id: variantADeliveryId(eventId), attempt: 1, due_at: f.clock.now().toISOString() });
    expect(await handleWebhookMessage(attempt1, f.deps)).toBe('done');
    expect(f.sender.requests).toHaveLength(1);
  });

  it('creates the delivery holding the lease of attempt 1; a worker dying mid-attempt leaves it to the replayed event, sent once the lease is over', async () => {
    const f = fakeWebhooks();
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    const { eventId, body } = eventBody(f, 'payment_status_update');
    const dying = { ...f.deps, webhookSender: async () => Promise.reject(new Error('worker died mid-way')) };
    await expect(handleWebhookMessage(body, dying)).rejects.toThrow('worker died mid-way');
    const created = await f.deliveries.get('t-1', variantADeliveryId(eventId));
    expect(created).toMatchObject({ status: 'pending', attempts: 0, leaseToken: expect.any(String), leaseUntil: expect.any(String) });
    expect(Date.parse(created?.leaseUntil ?? '')).toBe(f.clock.now().getTime() + LEASE_MS);

    // The event comes back (its message was not deleted): the delivery exists, so its first attempt is queued.
    expect(await handleWebhookMessage(body, f.deps)).toBe('done');
    const [message] = f.queue.sent;
    expect(message && DeliveryMessage().parse(JSON.parse(message.body))).toMatchObject({ delivery_id: variantADeliveryId(eventId), attempt: 1, hop: 0 });
    // While the dead attempt's lease lasts, the message comes back later; after it, attempt 1 is sent.
    expect(await handleWebhookMessage(message?.body ?? '', f.deps)).toBe('retry');
    expect(f.sender.requests).toHaveLength(0);
    f.clock.advance(LEASE_MS + 1);
    await drain(f);
    expect(f.sender.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId]);
    expect(await f.deliveries.get('t-1', variantADeliveryId(eventId))).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it("sends an event's deliveries side by side, each signed with its own subscription's secret", async () => {
    const f = fakeWebhooks();
    const a = await createSubscription(actor, { url: 'https://hooks.example.com/1', event_types: ['payment.all'] }, f.clock.now(), f.deps);
    const b = await createSubscription(actor, { url: 'https://hooks.example.com/2', event_types: ['payment.completed'] }, f.clock.now(), f.deps);
    let inFlight = 0;
    let most = 0;
    const send = f.deps.webhookSender;
    const deps = {
      ...f.deps,
      webhookSender: async (r: Parameters<typeof send>[0]) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return send(r);
      },
    };
    const { eventId, body } = eventBody(f, 'payment.completed');
    await handleWebhookMessage(body, deps);
    expect(most).toBe(2);
    expect(f.queue.sent).toEqual([]);
    const byUrl = new Map(f.sender.requests.map((r) => [r.url, r]));
    for (const [url, sub] of [
      ['https://hooks.example.com/1', a],
      ['https://hooks.example.com/2', b],
    ] as const) {
      const request = byUrl.get(url);
      expect(request?.headers).toEqual(signatureHeaders(sub.secret, eventId, f.clock.now(), request?.body ?? ''));
    }
    expect(await f.deliveries.get('t-1', subscriptionDeliveryId(eventId, a.id))).toMatchObject({ status: 'succeeded', attempts: 1, leaseToken: null });
    expect(await f.deliveries.get('t-1', subscriptionDeliveryId(eventId, b.id))).toMatchObject({ status: 'succeeded', attempts: 1, leaseToken: null });
  });

  it('sends envelope B to matching active subscriptions only, and turns a subscription inactive after 5 failures', async () => {
    const f = fakeWebhooks({ sender: new ScriptedSender(500) });
    const sub = await createSubscription(actor, { url: 'https://hooks.example.com/s', event_types: ['payment.all'] }, f.clock.now(), f.deps);
    await createSubscription(actor, { url: 'https://hooks.example.com/w', event_types: ['withdrawal.all'] }, f.clock.now(), f.deps);
    const { eventId, body } = eventBody(f, 'payment.failed');
    await handleWebhookMessage(body, f.deps);
    await drain(f);
    expect(new Set(f.sender.requests.map((r) => r.url))).toEqual(new Set(['https://hooks.example.com/s']));
    expect(JSON.parse(f.sender.requests[0]?.body ?? '')).toMatchObject({ id: eventId, event: 'payment.failed', data: { transaction_id: 'p-1' } });
    expect(await f.deliveries.get('t-1', subscriptionDeliveryId(eventId, sub.id))).toMatchObject({ status: 'failed', attempts: 6 });
    expect(await f.subscriptions.get('t-1', sub.id)).toMatchObject({ status: 'inactive', failureCount: 6, lastTriggeredAt: f.clock.now().toISOString() });

    const before = f.sender.requests.length;
    await handleWebhookMessage(eventBody(f, 'payment.completed').body, f.deps);
    await drain(f);
    expect(f.sender.requests).toHaveLength(before);
  });

  it('a success resets the subscription failure count', async () => {
    const f = fakeWebhooks({ sender: new ScriptedSender(500, 500, 200) });
    const sub = await createSubscription(actor, { url: 'https://hooks.example.com/s', event_types: ['payment.completed'] }, f.clock.now(), f.deps);
    await handleWebhookMessage(eventBody(f, 'payment.completed').body, f.deps);
    await drain(f);
    expect(f.sender.requests).toHaveLength(3);
    expect(await f.subscriptions.get('t-1', sub.id)).toMatchObject({ status: 'active', failureCount: 0 });
  });

  it('plans nothing for an event nobody takes, and envelope A to a payload callback_url without it in the data', async () => {
    const f = fakeWebhooks();
    await handleWebhookMessage(eventBody(f, 'payment_status_update').body, f.deps);
    expect(f.queue.sent).toHaveLength(0);
    const { eventId, body } = eventBody(f, 'payment_status_update', { transaction_id: 'p-2', callback_url: 'https://shop.example.com/cb' });
    await handleWebhookMessage(body, f.deps);
    await drain(f);
    expect(f.sender.requests.map((r) => [r.url, JSON.parse(r.body).data])).toEqual([['https://shop.example.com/cb', { transaction_id: 'p-2' }]]);
    // Unsigned without variant-A settings, but with its id and timestamp.
    expect(f.sender.requests[0]?.headers).toEqual({ 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(f.clock.now().getTime() / 1000)) });
  });

  it("plans the events of one change's message side by side, and a copy of the message sends none of them again", async () => {
    const f = fakeWebhooks();
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    const deposit = eventBody(f, 'deposit_received', { transaction_id: 'p-1', amount: 'AMOUNT' });
    const status = eventBody(f, 'payment_status_update');
    const message = changeMessageBody([deposit.body.replace('"AMOUNT"', '25.000000000000000001'), status.body]);
    expect(await handleWebhookMessage(message, f.deps)).toBe('done');
    expect(await handleWebhookMessage(message, f.deps)).toBe('done');
    await drain(f);
    expect(f.sender.requests.map((r) => r.headers['webhook-id']).sort()).toEqual([deposit.eventId, status.eventId].sort());
    // Numbers as the router read them, not rounded on the way.
    expect(f.sender.requests.find((r) => r.headers['webhook-id'] === deposit.eventId)?.body).toContain('"amount":25.000000000000000001');
    for (const { eventId } of [deposit, status])
      expect(await f.deliveries.get('t-1', variantADeliveryId(eventId))).toMatchObject({ status: 'succeeded', attempts: 1 });
    await expect(handleWebhookMessage(changeMessageBody([status.body, '{"event_id":"x"}']), f.deps)).rejects.toThrow();
  });
});
