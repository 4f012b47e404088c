import { createHmac, randomUUID } from 'node:crypto';
import { RETRY_DELAYS_SECONDS } from '../../../shared/domain/webhooks.js';
import type { Subscription } from '../../../shared/domain/webhooks.js';
import { dynamoWebhookDeliveries } from '../../../shared/store/webhooks/deliveries.js';
import { dynamoWebhookSubscriptions } from '../../../shared/store/webhooks/subscriptions.js';
import { handleWebhookMessage, subscriptionDeliveryId } from '../../../shared/usecases/webhooks/deliver.js';
import type { WebhookPorts } from '../../../shared/usecases/webhooks/ports.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import { createHttpSender } from '../../../shared/webhooks/http-sender.js';
import { VirtualClock } from '../../support/clock.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { fakeSecretBox, startReceiver, storeDeps, VirtualQueue, type Receiver } from './support.js';

/**
 * The retry schedule in virtual time (Clock port): the receiver is a real HTTP server on loopback, the queue a
 * virtual SQS, the store DynamoDB Local. No test waits for the schedule.
 */
let table: TestTable;
let receiver: Receiver;
const clock = new VirtualClock(Date.parse('2026-03-01T12:00:00.000Z'));
const tenantId = randomUUID();

beforeAll(async () => {
  table = await startTestTable('webhooks-schedule');
  receiver = await startReceiver(
    () => 200,
    () => clock.now().getTime(),
  );
});

afterAll(async () => {
  await receiver?.close();
  await table?.stop();
});

const getSubscription = (tenant: string, id: string) => dynamoWebhookSubscriptions.get(tenant, id);
const getDelivery = (tenant: string, id: string) => dynamoWebhookDeliveries.get(tenant, id);

function event(type: string, payload: Record<string, unknown> = { transaction_id: randomUUID(), status: 'completed' }) {
  return JSON.stringify({ event_id: randomUUID(), tenant_id: tenantId, type, occurred_at: clock.now().toISOString(), payload });
}

describe('retry schedule in virtual time', () => {
  let queue: VirtualQueue;
  let deps: WebhookPorts;
  let subscription: Subscription;
  let secret: string;

  beforeAll(async () => {
    queue = new VirtualQueue(clock);
    deps = storeDeps({ clock, queue, send: createHttpSender({ policy: { allowLoopback: true } }), secrets: fakeSecretBox });
    const created = await createSubscription({ tenantId, credential: 'test' }, { url: receiver.url, event_types: ['payment.all'] }, clock.now(), deps);
    secret = created.secret;
    const stored = await getSubscription(tenantId, created.id);
    if (!stored) throw new Error('subscription not stored');
    subscription = stored;
  });

  it('gives the fourth attempt at 1 m + 5 m + 15 m after the first to a receiver down for three, and keeps the subscription right', async () => {
    let calls = 0;
    const seen: { at: number; failureCount: number; status: string; lastTriggeredAt: string | null }[] = [];
    receiver.decide = () => (++calls <= 3 ? 503 : 200);
    receiver.received.length = 0;
    const body = event('payment.completed');
    const eventId = (JSON.parse(body) as { event_id: string }).event_id;
    const handle = async (b: string) => {
      const outcome = await handleWebhookMessage(b, deps);
      const sub = await getSubscription(tenantId, subscription.id);
      if (sub && receiver.received.length > seen.length) {
        seen.push({ at: clock.now().getTime(), failureCount: sub.failureCount, status: sub.status, lastTriggeredAt: sub.lastTriggeredAt });
      }
      return outcome;
    };
    await queue.send([{ body, delaySeconds: 0 }]);
    const first = clock.now().getTime();
    await queue.drain(handle);

    const times = receiver.received.map((r) => (r.at - first) / 1000);
    const expected = [0, 60, 60 + 300, 60 + 300 + 900];
    expect(times).toHaveLength(4);
    times.forEach((t, i) => expect(Math.abs(t - (expected[i] ?? -1))).toBeLessThanOrEqual(1));
    // Every attempt carries the same webhook-id and body, and is signed.
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    for (const r of receiver.received) {
      expect(r.headers['x-signature']).toBe(createHmac('sha256', Buffer.from(secret, 'utf8')).update(r.body).digest('hex'));
    }
    // failure_count counts consecutive failures, a success resets it; last_triggered_at follows each attempt.
    expect(seen.map((s) => s.failureCount)).toEqual([1, 2, 3, 0]);
    expect(seen.map((s) => s.status)).toEqual(['active', 'active', 'active', 'active']);
    expect(seen.map((s) => s.lastTriggeredAt)).toEqual(seen.map((s) => new Date(s.at).toISOString()));
    const delivery = await getDelivery(tenantId, subscriptionDeliveryId(eventId, subscription.id));
    expect([delivery?.status, delivery?.attempts]).toEqual(['succeeded', 4]);
    // No message ever asked SQS for more than 900 s.
    expect(Math.max(...queue.sent.map((m) => m.delaySeconds))).toBeLessThanOrEqual(900);
  });

  it('fails the delivery after the fifth retry, turns the subscription inactive after 5 failures, and sends it no new events', async () => {
    receiver.decide = () => 500;
    receiver.received.length = 0;
    const body = event('payment.failed');
    const eventId = (JSON.parse(body) as { event_id: string }).event_id;
    const first = clock.now().getTime();
    const statuses: string[] = [];
    await queue.send([{ body, delaySeconds: 0 }]);
    await queue.drain(async (b) => {
      const before = receiver.received.length;
      const outcome = await handleWebhookMessage(b, deps);
      if (receiver.received.length > before) statuses.push((await getSubscription(tenantId, subscription.id))?.status ?? 'gone');
      return outcome;
    });
    const offsets = receiver.received.map((r) => Math.round((r.at - first) / 1000));
    let sum = 0;
    expect(offsets).toEqual([0, ...RETRY_DELAYS_SECONDS.map((d) => (sum += d))]);
    // Inactive at the fifth consecutive failure; the attempt already scheduled still runs out.
    expect(statuses).toEqual(['active', 'active', 'active', 'active', 'inactive', 'inactive']);
    const delivery = await getDelivery(tenantId, subscriptionDeliveryId(eventId, subscription.id));
    expect([delivery?.status, delivery?.attempts]).toEqual(['failed', 6]);
    const sub = await getSubscription(tenantId, subscription.id);
    expect([sub?.status, sub?.failureCount, sub?.lastTriggeredAt]).toEqual(['inactive', 6, new Date(first + sum * 1000).toISOString()]);
    // Delays over 900 s went through the queue in pieces of at most 900 s.
    expect(Math.max(...queue.sent.map((m) => m.delaySeconds))).toBe(900);

    receiver.received.length = 0;
    await queue.send([{ body: event('payment.completed'), delaySeconds: 0 }]);
    await queue.drain((b) => handleWebhookMessage(b, deps));
    expect(receiver.received).toHaveLength(0);
  });
});
