import { randomUUID } from 'node:crypto';
import {
  DELIVERY_TIMEOUT_MS,
  FIRST_LANE_TIMEOUT_MS,
  RETRY_LANE_DEFER_SECONDS,
  RETRY_LANE_TENANT_LIMIT,
  SLOW_MARK_MS,
} from '../../../shared/domain/webhooks.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import { DeliveryMessage, handleWebhookMessage, RETRY_LANE, retryLane, variantADeliveryId } from '../../../shared/usecases/webhooks/deliver.js';
import type { DeliveryLane } from '../../../shared/usecases/webhooks/deliver.js';
import { TenantGate } from '../../../shared/usecases/webhooks/first-lane.js';
import type { WebhookAnswer, WebhookRequest } from '../../../shared/usecases/webhooks/ports.js';
import type { FakeWebhooks } from '../../support/fakes/webhooks.js';
import { fakeWebhooks } from '../../support/fakes/webhooks.js';

/**
 * The two lanes (issue 25, item 4) against the in-memory ports: the first lane waits briefly, hands an attempt
 * that got no answer to the retry lane with its lease, and marks the receiver slow; marked receivers go straight
 * to the retry lane; the retry lane waits the full timeout, schedules retries on its own queue, and a timely
 * answer clears the mark; a tenant's places in the first lane are bounded.
 */
const tenantId = 't-1';
const actor = { tenantId, credential: 'test' };

/** A receiver whose answer the test sets: 'hang' answers as a timeout of the request's own limit. */
class Receiver {
  readonly requests: WebhookRequest[] = [];
  mode: 'ok' | 'hang' | 'slow-ok' = 'ok';
  readonly send = async (request: WebhookRequest): Promise<WebhookAnswer> => {
    this.requests.push(request);
    const limit = request.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    if (this.mode === 'hang') return { statusCode: null, latencyMs: limit, excerpt: '', error: `timeout after ${limit} ms`, timedOut: true };
    return { statusCode: 200, latencyMs: this.mode === 'slow-ok' ? FIRST_LANE_TIMEOUT_MS + 500 : 5, excerpt: 'ok', error: null };
  };
}

function setup(): { f: FakeWebhooks; receiver: Receiver; first: DeliveryLane } {
  const f = fakeWebhooks({ separateRetryQueue: true });
  const receiver = new Receiver();
  const deps = { ...f.deps, webhookSender: receiver.send };
  return { f: { ...f, deps }, receiver, first: { kind: 'first', gate: new TenantGate() } };
}

const event = (f: FakeWebhooks, type = 'payment_status_update') => {
  const eventId = randomUUID();
  return {
    eventId,
    body: JSON.stringify({
      event_id: eventId,
      tenant_id: tenantId,
      type,
      occurred_at: f.clock.now().toISOString(),
      payload: { transaction_id: 'p-1', status: 'completed' },
    }),
  };
};

describe('the first lane', () => {
  it('waits for a receiver only briefly; no answer: the attempt goes to the retry lane with its lease, the receiver is marked slow', async () => {
    const { f, receiver, first } = setup();
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    receiver.mode = 'hang';
    const { eventId, body } = event(f);
    expect(await handleWebhookMessage(body, f.deps, first)).toBe('done');
    expect(receiver.requests.map((r) => r.timeoutMs)).toEqual([FIRST_LANE_TIMEOUT_MS]);
    // Nothing recorded for the cut request: the delivery still waits for attempt 1, which the retry lane now holds.
    const delivery = await f.deliveries.get(tenantId, variantADeliveryId(eventId));
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
    expect(f.attempts.items).toEqual([]);
    expect(f.queue.sent).toEqual([]);
    const handed = f.retryQueue.take();
    expect(handed).toHaveLength(1);
    expect(DeliveryMessage().parse(JSON.parse(handed[0]?.body ?? ''))).toMatchObject({ attempt: 1, lease: delivery?.leaseToken, hop: 0 });
    expect(handed[0]?.delaySeconds).toBe(0);
    expect((await f.settings.get(tenantId))?.slowUntil).toBe(new Date(f.clock.now().getTime() + SLOW_MARK_MS).toISOString());

    // The retry lane takes the lease over at once (it has not run out) and waits the full timeout; the failure
    // schedules attempt 2 on the retry lane's queue, a minute later.
    expect(await handleWebhookMessage(handed[0]?.body ?? '', f.deps, RETRY_LANE)).toBe('done');
    expect(receiver.requests.map((r) => r.timeoutMs)).toEqual([FIRST_LANE_TIMEOUT_MS, DELIVERY_TIMEOUT_MS]);
    expect(await f.deliveries.get(tenantId, variantADeliveryId(eventId))).toMatchObject({ status: 'pending', attempts: 1 });
    expect(f.attempts.items.map((a) => [a.attempt, a.succeeded, a.error])).toEqual([[1, false, `timeout after ${DELIVERY_TIMEOUT_MS} ms`]]);
    const retry = f.retryQueue.take();
    expect(retry.map((m) => [DeliveryMessage().parse(JSON.parse(m.body)).attempt, m.delaySeconds])).toEqual([[2, 60]]);
    expect(f.queue.sent).toEqual([]);
  });

  it('sends the first attempts of a receiver marked slow straight to the retry lane; an answer in time there clears the mark', async () => {
    const { f, receiver, first } = setup();
    const sub = await createSubscription(actor, { url: 'https://hooks.example.com/b', event_types: ['payment.all'] }, f.clock.now(), f.deps);
    await f.subscriptions.markSlow(tenantId, sub.id, new Date(f.clock.now().getTime() + SLOW_MARK_MS));
    const { body } = event(f, 'payment.completed');
    expect(await handleWebhookMessage(body, f.deps, first)).toBe('done');
    expect(receiver.requests).toEqual([]);
    const handed = f.retryQueue.take();
    expect(handed).toHaveLength(1);

    // A success, but slower than the first lane waits: the mark stays.
    receiver.mode = 'slow-ok';
    expect(await handleWebhookMessage(handed[0]?.body ?? '', f.deps, RETRY_LANE)).toBe('done');
    expect((await f.subscriptions.get(tenantId, sub.id))?.slowUntil).toEqual(expect.any(String));
    // A success in time clears it, and the next first attempt is the first lane's again.
    const next = event(f, 'payment.completed');
    expect(await handleWebhookMessage(next.body, f.deps, first)).toBe('done');
    receiver.mode = 'ok';
    expect(await handleWebhookMessage(f.retryQueue.take()[0]?.body ?? '', f.deps, RETRY_LANE)).toBe('done');
    expect((await f.subscriptions.get(tenantId, sub.id))?.slowUntil).toBeNull();
    const third = event(f, 'payment.completed');
    expect(await handleWebhookMessage(third.body, f.deps, first)).toBe('done');
    expect(receiver.requests.at(-1)?.timeoutMs).toBe(FIRST_LANE_TIMEOUT_MS);
    expect(f.retryQueue.sent).toEqual([]);
    expect(f.attempts.items.map((a) => a.succeeded)).toEqual([true, true, true]);
  });

  it('a mark runs out: the receiver is tried on the first lane again', async () => {
    const { f, receiver, first } = setup();
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    await f.settings.markSlow(tenantId, new Date(f.clock.now().getTime() + SLOW_MARK_MS));
    f.clock.set(f.clock.now().getTime() + SLOW_MARK_MS + 1);
    expect(await handleWebhookMessage(event(f).body, f.deps, first)).toBe('done');
    expect(receiver.requests.map((r) => r.timeoutMs)).toEqual([FIRST_LANE_TIMEOUT_MS]);
    expect(f.retryQueue.sent).toEqual([]);
  });

  it('a duplicate of a hand-over does not send twice: the lease was taken over by the first copy', async () => {
    const { f, receiver, first } = setup();
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    receiver.mode = 'hang';
    await handleWebhookMessage(event(f).body, f.deps, first);
    const handed = f.retryQueue.take()[0]?.body ?? '';
    receiver.mode = 'ok';
    expect(await handleWebhookMessage(handed, f.deps, RETRY_LANE)).toBe('done');
    expect(await handleWebhookMessage(handed, f.deps, RETRY_LANE)).toBe('done');
    expect(receiver.requests.map((r) => r.timeoutMs)).toEqual([FIRST_LANE_TIMEOUT_MS, DELIVERY_TIMEOUT_MS]);
  });
});

describe('the retry lane', () => {
  it("holds at most a few of a tenant's attempts at once: a due message beyond them goes back unclaimed, another tenant's keeps its place", async () => {
    const { f, receiver, first } = setup();
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    await f.settings.markSlow(tenantId, new Date(f.clock.now().getTime() + SLOW_MARK_MS));
    const count = RETRY_LANE_TENANT_LIMIT + 3;
    for (let i = 0; i < count; i++) await handleWebhookMessage(event(f).body, f.deps, first);
    const handed = f.retryQueue.take();
    expect(handed).toHaveLength(count);

    // B's receiver hangs until released; its attempts fill the tenant's places.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hang = async (request: WebhookRequest): Promise<WebhookAnswer> => {
      receiver.requests.push(request);
      await held;
      return { statusCode: null, latencyMs: DELIVERY_TIMEOUT_MS, excerpt: '', error: `timeout after ${DELIVERY_TIMEOUT_MS} ms`, timedOut: true };
    };
    const deps = { ...f.deps, webhookSender: hang };
    const lane = retryLane();
    const running = handed.map((m) => handleWebhookMessage(m.body, deps, lane));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(receiver.requests).toHaveLength(RETRY_LANE_TENANT_LIMIT);
    // The rest went back as they came (lease and all), due again a little later; nothing of theirs was claimed.
    const back = f.retryQueue.take();
    expect(back.every((m) => handed.some((h) => h.body === m.body))).toBe(true);
    expect(back).toHaveLength(3);
    expect(back.every((m) => m.delaySeconds === RETRY_LANE_DEFER_SECONDS)).toBe(true);
    for (const m of back) {
      const { delivery_id } = DeliveryMessage().parse(JSON.parse(m.body));
      expect(await f.deliveries.get(tenantId, delivery_id)).toMatchObject({ status: 'pending', attempts: 0 });
    }

    // Another tenant's retry is not held up by B's full places.
    const other = 't-2';
    await createSettings({ tenantId: other, credential: 'test' }, { callback_url: 'https://hooks.example.com/c' }, f.clock.now(), f.deps);
    await f.settings.markSlow(other, new Date(f.clock.now().getTime() + SLOW_MARK_MS));
    const otherEvent = JSON.parse(event(f).body) as Record<string, unknown>;
    await handleWebhookMessage(JSON.stringify({ ...otherEvent, tenant_id: other }), f.deps, first);
    const otherHanded = f.retryQueue.take();
    expect(otherHanded).toHaveLength(1);
    const ok = handleWebhookMessage(otherHanded[0]?.body ?? '', { ...f.deps, webhookSender: receiver.send }, lane);
    expect(await ok).toBe('done');
    expect(receiver.requests.at(-1)?.url).toBe('https://hooks.example.com/c');

    release();
    expect(await Promise.all(running)).toEqual(handed.map(() => 'done'));
    // Once B's attempts ended, its places are free again.
    expect(await handleWebhookMessage(back[0]?.body ?? '', { ...f.deps, webhookSender: receiver.send }, lane)).toBe('done');
    expect(f.attempts.items.filter((a) => a.succeeded)).toHaveLength(2);
  });
});

describe('TenantGate', () => {
  it('lets a tenant hold at most its places; one more waits briefly, then (and while the tenant stays full) is refused', async () => {
    const gate = new TenantGate(2, 20);
    const one = await gate.enter('b');
    const two = await gate.enter('b');
    expect([one, two].every((x) => typeof x === 'function')).toBe(true);
    expect(await gate.enter('b')).toBeNull();
    // Another tenant is not held up.
    const other = await gate.enter('a');
    expect(other).toEqual(expect.any(Function));
    other?.();
    // A waiter gets the place a leaver frees.
    one?.();
    const three = await gate.enter('b');
    expect(three).toEqual(expect.any(Function));
    const waiting = gate.enter('b');
    two?.();
    expect(await waiting).toEqual(expect.any(Function));
    expect(gate.count('b')).toBe(2);
  });

  it('gives a tenant whose first attempt timed out no place for a while', async () => {
    let now = 0;
    const gate = new TenantGate(10, 20, 1_000, () => now);
    gate.timedOut('b');
    expect(await gate.enter('b')).toBeNull();
    expect(await gate.enter('a')).toEqual(expect.any(Function));
    now = 1_001;
    expect(await gate.enter('b')).toEqual(expect.any(Function));
  });
});
