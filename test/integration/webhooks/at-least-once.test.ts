import { randomUUID } from 'node:crypto';
import { newDelivery } from '../../../shared/domain/webhooks.js';
import { dynamoWebhookDeliveries } from '../../../shared/store/webhooks/deliveries.js';
import { handleWebhookMessage, variantADeliveryId } from '../../../shared/usecases/webhooks/deliver.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { createHttpSender } from '../../../shared/webhooks/http-sender.js';
import type { WebhookSender } from '../../../shared/usecases/webhooks/ports.js';
import { VirtualClock } from '../../support/clock.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { fakeSecretBox, startReceiver, storeDeps, VirtualQueue, type Received, type Receiver } from './support.js';

/**
 * 1,000 events to a tenant's default (variant A) URL whose receiver fails 30 % of requests at random and drops
 * some connections; some workers "die" right after sending (before recording). Every event is delivered; once
 * the receiver acknowledged an event it never sees it again; every repeat carries the same webhook-id and body;
 * and the same holds for 400 events when the queue hands every message to two workers at once (twice the
 * deliveries, each racing its twin for the claim, on a DynamoDB Local that serves one request at a time).
 */
const EVENTS = Number(process.env.WEBHOOK_TEST_EVENTS ?? 1000);
const EVENTS_TWICE = Number(process.env.WEBHOOK_TEST_EVENTS_TWICE ?? 400);
let table: TestTable;
let receiver: Receiver;
const clock = new VirtualClock(Date.parse('2026-04-01T00:00:00.000Z'));

/** Deterministic randomness, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

beforeAll(async () => {
  table = await startTestTable('webhooks-at-least-once');
  receiver = await startReceiver(
    () => 200,
    () => clock.now().getTime(),
  );
});

afterAll(async () => {
  await receiver?.close();
  await table?.stop();
});

async function run(copies: number, seed: number, events: number) {
  const random = rng(seed);
  const tenantId = randomUUID();
  const queue = new VirtualQueue(clock);
  const http = createHttpSender({ policy: { allowLoopback: true } });
  // A worker that dies after the receiver got the request, before anything is recorded.
  const unrecorded = new Set<Received>();
  const dying: WebhookSender = async (request) => {
    const answer = await http(request);
    if (random() < 0.02) {
      // Whatever the receiver answered, the gateway never learnt it.
      const last = [...receiver.received].reverse().find((r) => r.headers['webhook-id'] === request.headers['webhook-id']);
      if (last) unrecorded.add(last);
      throw new Error('worker died mid-way');
    }
    return answer;
  };
  const deps = storeDeps({ clock, queue, send: dying, secrets: fakeSecretBox });
  await createSettings({ tenantId, credential: 'test' }, { callback_url: receiver.url }, clock.now(), deps);

  receiver.received.length = 0;
  // 30 % of requests fail at random (a sixth of those by dropping the connection), except that an event's sixth
  // failure is not drawn: the schedule has six attempts (after which the delivery is `failed`), and i.i.d. failures
  // would exhaust them for 0.07 % of events.
  const failures = new Map<string, number>();
  receiver.decide = ({ headers }) => {
    const id = String(headers['webhook-id']);
    const r = random();
    if ((failures.get(id) ?? 0) >= 5 || r >= 0.3) return 200;
    failures.set(id, (failures.get(id) ?? 0) + 1);
    return r < 0.05 ? 'dropped' : 500;
  };
  const ids: string[] = [];
  for (let i = 0; i < events; i++) {
    const eventId = randomUUID();
    ids.push(eventId);
    const payload = { transaction_id: eventId, status: 'completed', previous_status: 'confirmed', order_id: `order-${i}` };
    await queue.send([
      {
        body: JSON.stringify({ event_id: eventId, tenant_id: tenantId, type: 'payment_status_update', occurred_at: clock.now().toISOString(), payload }),
        delaySeconds: 0,
      },
    ]);
  }
  await queue.drain((body) => handleWebhookMessage(body, deps), { copies, concurrency: 32 });

  const byId = new Map<string, typeof receiver.received>();
  for (const r of receiver.received) {
    const id = String(r.headers['webhook-id']);
    byId.set(id, [...(byId.get(id) ?? []), r]);
  }
  for (const id of ids) {
    const requests = byId.get(id) ?? [];
    // Delivered: the receiver acknowledged it, and nothing came after the acknowledgement.
    const acked = requests.findIndex((r) => r.answer === 200 && !unrecorded.has(r));
    expect(acked).toBeGreaterThanOrEqual(0);
    expect(requests.length).toBe(acked + 1);
    // Every repeat is the same message: same webhook-id (grouped by it) and the same body naming the event.
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    expect((JSON.parse(requests[0]?.body ?? '{}') as { data: { transaction_id: string } }).data.transaction_id).toBe(id);
  }
  expect(byId.size).toBe(events);
  // The gateway's record agrees.
  for (const id of ids.slice(0, 50)) expect((await dynamoWebhookDeliveries.get(tenantId, variantADeliveryId(id)))?.status).toBe('succeeded');
  return receiver.received.length;
}

describe('at-least-once delivery to a flaky receiver', () => {
  it('delivers every one of 1,000 events and never repeats an acknowledged one', async () => {
    const requests = await run(1, 7, EVENTS);
    expect(requests).toBeGreaterThan(EVENTS);
  });

  it('holds when the queue hands every message to two workers at once', async () => {
    expect(await run(2, 11, EVENTS_TWICE)).toBeGreaterThan(EVENTS_TWICE);
  });
});

describe('a delivery created claimed (the first attempt sent by the worker that plans it)', () => {
  it('holds attempt 1 for its creator until the lease runs out; a second creation is refused', async () => {
    const tenantId = randomUUID();
    const now = clock.now();
    const until = new Date(now.getTime() + 60_000);
    const delivery = newDelivery(
      {
        tenantId,
        deliveryId: `${randomUUID()}.a`,
        eventId: 'e',
        eventType: 'payment_status_update',
        webhookId: 'e',
        destination: { kind: 'default', url: 'https://hooks.example.com/a' },
        body: '{}',
      },
      now,
    );
    const claimed = { ...delivery, leaseToken: 'creator', leaseUntil: until.toISOString() };
    expect(await dynamoWebhookDeliveries.create(claimed, now)).toBe(true);
    expect(await dynamoWebhookDeliveries.create({ ...claimed, leaseToken: 'other' }, now)).toBe(false);
    expect(await dynamoWebhookDeliveries.get(tenantId, delivery.deliveryId)).toMatchObject({
      attempts: 0,
      leaseToken: 'creator',
      leaseUntil: until.toISOString(),
    });
    // Another worker (a queued attempt-1 message) cannot claim it while the lease lasts, and can once it is over.
    expect(await dynamoWebhookDeliveries.claimAttempt(tenantId, delivery.deliveryId, 1, 'queued', now, until)).toBeNull();
    const later = new Date(until.getTime() + 1);
    expect(await dynamoWebhookDeliveries.claimAttempt(tenantId, delivery.deliveryId, 1, 'queued', later, new Date(later.getTime() + 60_000))).toMatchObject({
      leaseToken: 'queued',
    });
    // The creator, its lease lost, can no longer record an outcome.
    expect(await dynamoWebhookDeliveries.completeAttempt(tenantId, delivery.deliveryId, 1, 'creator', { status: 'succeeded', nextDueAt: null, at: now })).toBe(
      false,
    );
  });
});
