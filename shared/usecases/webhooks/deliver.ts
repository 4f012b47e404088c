import { randomUUID } from 'node:crypto';
import { parse, stringify } from 'lossless-json';
import * as z from 'zod';
import { TENANT_EVENT_TYPES } from '../../domain/events.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';
import {
  answeredInTime,
  DELIVERY_TIMEOUT_MS,
  defaultUrlReceives,
  deliveryMessageBody,
  envelopeA,
  FIRST_LANE_TIMEOUT_MS,
  isMarkedSlow,
  envelopeB,
  isDeliveryEvent,
  awaitsFirstAttempt,
  isActiveSubscription,
  isPendingDelivery,
  isSubscriptionEvent,
  isSuccessStatus,
  MAX_ATTEMPTS,
  newDelivery,
  queueDelaySeconds,
  retryDelaySeconds,
  RETRY_LANE_DEFER_SECONDS,
  RETRY_LANE_TENANT_LIMIT,
  slowMarkUntil,
  SUBSCRIPTION_FAILURE_LIMIT,
  subscriptionMatches,
} from '../../domain/webhooks.js';
import type { Delivery, Destination, Subscription, WebhookSettings } from '../../domain/webhooks.js';
import { emitMetrics, METRIC_NAMES, METRIC_NAMESPACES } from '../../observability/metrics.js';
import type { EmitMetrics } from '../../observability/metrics.js';
import { isRejected } from '../settled.js';
import { TenantGate } from './first-lane.js';
import type { DeliveryPorts, QueuedMessage, WebhookAnswer } from './ports.js';
import { signatureHeaders } from './signing.js';

/**
 * How events become deliveries (DESIGN sections 6, 7).
 *
 * 1. The event router forwards each committed outbox event to the `webhook-delivery` queue, body
 *    `{event_id, tenant_id, type, occurred_at, payload}` (functions/event-router/handler.ts, `messageBody`); the
 *    events of one change as one message `{"kind":"webhook_events","v":1,"events":[...]}` (`changeMessageBody`).
 * 2. The worker PLANS it, from one fresh read of the tenant's configuration (the variant-A settings for a
 *    delivery event, the subscriptions for a subscription event; the events of one change, planned side by side,
 *    share it: shared/runtime/webhooks.ts `sharedReads`): envelope A to the payload's `callback_url` if
 *    present, else to the tenant's variant-A URL (if its `enabled_events` take the type); envelope B to every
 *    ACTIVE variant-B subscription that matches. Each (event, destination) becomes a delivery item keyed by the
 *    natural id `<event id>.a` or `<event id>.s.<subscription id>`, created only if absent and already holding
 *    the lease of attempt 1, which the worker then SENDS at once (below), the deliveries of one event side by
 *    side. A replayed event finds its deliveries: one still waiting for its first attempt gets a delivery message
 *    instead, so it is sent once the lease of the crashed attempt runs out:
 *
 *      {"kind":"webhook_delivery","v":1,"tenant_id":"…","delivery_id":"…","attempt":1,"due_at":"<ISO 8601>"}
 *
 * 3. A delivery message is a retry (or a redelivery, or an attempt a replay handed back): early (before
 *    `due_at`) → re-enqueued for the rest (at most 900 s); otherwise the worker claims attempt n with a
 *    conditional write (pending, n-1 attempts recorded, no live lease) and SENDS it.
 * 4. Sending: posts, enqueues attempt n+1 on failure (1 m, 5 m, 15 m, 1 h, 4 h after attempt n), logs the attempt
 *    and records the outcome. A duplicate message, or one redelivered after a success was recorded, finds the
 *    delivery done and is dropped; one redelivered after a crash mid-attempt finds the lease expired and sends
 *    again with the same `webhook-id` (the event id).
 * 5. Two lanes (shared/domain/webhooks.ts, FIRST_LANE_TIMEOUT_MS): the first lane (`webhook-delivery`, the steps
 *    above) waits for a receiver FIRST_LANE_TIMEOUT_MS, not the full DELIVERY_TIMEOUT_MS. An attempt that got no
 *    answer by then, one to a receiver marked slow, and one its tenant has no place for (./first-lane.ts) is
 *    HANDED OVER: a delivery message for the same attempt, carrying the claim's lease token (`lease`), goes to the
 *    retry lane (`webhook-retries`), whose worker takes the lease over and makes the attempt with the full timeout;
 *    nothing is recorded for the cut request (a receiver may see it twice, with one `webhook-id`). A timeout also
 *    marks the receiver slow (`slowUntil` on the variant-A settings or the subscription, read by the plan anyway).
 *    Every later attempt (the retry schedule) and every relay runs on the retry lane; an answer there within
 *    FIRST_LANE_TIMEOUT_MS clears the mark.
 */

/** What the delivery worker needs: the ports of ./ports.ts. */
export type DeliveryDeps = DeliveryPorts & {
  /** Where each attempt's outcome and latency go (default: EMF lines, shared/observability/metrics.ts). */
  readonly emit?: EmitMetrics;
};

/** A claimed attempt is ours for this long (the worker's timeout is shorter; the SQS visibility longer). */
export const LEASE_MS = 60_000;

export const DeliveryMessage = lazySchema(() =>
  z.object({
    kind: z.literal('webhook_delivery'),
    v: z.literal(1),
    tenant_id: z.string().min(1),
    delivery_id: z.string().min(1),
    attempt: z.number().int().min(1).max(MAX_ATTEMPTS),
    due_at: z.string().datetime(),
    /** How many times this attempt's message was passed on because it arrived early (delays over 900 s). */
    hop: z.number().int().min(0).default(0),
    /** A hand-over from the first lane: the lease token of its claim, which the retry lane takes over. */
    lease: z.string().min(1).optional(),
  }),
);
export type DeliveryMessage = LazyOutput<typeof DeliveryMessage>;

/**
 * An outbox event from the router: one of the catalogue's webhook events (shared/domain/events.ts). The payload is
 * kept as read (lossless numbers), since it is forwarded to the merchant exactly as it was written.
 */
export const EventMessage = lazySchema(() =>
  z.object({
    event_id: z.string().min(1),
    tenant_id: z.string().min(1),
    type: z.enum(TENANT_EVENT_TYPES),
    occurred_at: z.string().min(1),
    payload: z.record(z.string(), z.unknown()),
  }),
);
export type EventMessage = LazyOutput<typeof EventMessage>;

/**
 * Which worker runs a message: the first lane (`webhook-delivery`, short waits, hand-overs, the process's tenant
 * places) or the retry lane (`webhook-retries`, the full timeout, never handed on).
 */
export type DeliveryLane = { readonly kind: 'first'; readonly gate: TenantGate } | { readonly kind: 'retry'; readonly gate?: TenantGate };
export const RETRY_LANE: DeliveryLane = { kind: 'retry' };

/**
 * The retry lane of a worker process: its tenant places (RETRY_LANE_TENANT_LIMIT each, no waiting); a due message
 * of a tenant that holds them all goes back to the queue (see `handleWebhookMessage`).
 */
export const retryLane = (): DeliveryLane => ({ kind: 'retry', gate: new TenantGate(RETRY_LANE_TENANT_LIMIT, 0) });

const stringifyExact = (value: unknown): string => stringify(value) ?? 'null';

/** The router's message of one change's events (`changeMessageBody`, shared/domain/webhooks.ts), as read losslessly. */
const ChangeMessage = lazySchema(() =>
  z.object({
    kind: z.literal('webhook_events'),
    v: z.custom((v) => String(v) === '1', 'Expected version 1'),
    events: z.array(z.unknown()).min(1),
  }),
);

/** A queue message: an outbox event from the router, the events of one change from the router, or one of our delivery messages. */
export function parseWebhookMessage(
  body: string,
): { kind: 'event'; event: EventMessage } | { kind: 'events'; events: EventMessage[] } | { kind: 'delivery'; message: DeliveryMessage } {
  const value: unknown = parse(body);
  if (value !== null && typeof value === 'object' && 'kind' in value && value.kind === 'webhook_delivery') {
    const plain: unknown = JSON.parse(body);
    return { kind: 'delivery', message: DeliveryMessage().parse(plain) };
  }
  if (value !== null && typeof value === 'object' && 'kind' in value && value.kind === 'webhook_events') {
    return {
      kind: 'events',
      events: ChangeMessage()
        .parse(value)
        .events.map((e) => EventMessage().parse(e)),
    };
  }
  return { kind: 'event', event: EventMessage().parse(value) };
}

export type Outcome = 'done' | 'retry';

/**
 * One queue message, end to end, on `lane` (default: the retry lane's rules, as a single lane would run it).
 * 'retry' asks the queue to hand it back later (partial batch failure).
 */
export async function handleWebhookMessage(body: string, deps: DeliveryDeps, lane: DeliveryLane = RETRY_LANE): Promise<Outcome> {
  const message = parseWebhookMessage(body);
  if (message.kind === 'event') {
    await planDeliveries(message.event, deps, lane);
    return 'done';
  }
  if (message.kind === 'events') {
    // Side by side, as events arriving in one batch; the message comes back whole if one of them failed to run.
    const runs = await Promise.allSettled(message.events.map((event) => planDeliveries(event, deps, lane)));
    const failed = runs.find(isRejected);
    if (failed) throw failed.reason;
    return 'done';
  }
  const delivery = message.message;
  if (lane.kind !== 'retry' || !lane.gate || Date.parse(delivery.due_at) > deps.clock.now().getTime()) {
    return (await processDelivery(delivery, deps, lane)).outcome;
  }
  // The retry lane's places per tenant: without one, the message goes back unclaimed (its lease, if handed over,
  // unchanged: it runs out or is taken over when the message returns).
  const leave = await lane.gate.enter(delivery.tenant_id);
  if (!leave) {
    await deps.retryQueue.send([{ body, delaySeconds: RETRY_LANE_DEFER_SECONDS }]);
    return 'done';
  }
  try {
    return (await processDelivery(delivery, deps, lane)).outcome;
  } finally {
    leave();
  }
}

/* ------------------------------------------------------------------ planning ------------------------------- */

export const variantADeliveryId = (eventId: string): string => `${eventId}.a`;
export const subscriptionDeliveryId = (eventId: string, subscriptionId: string): string => `${eventId}.s.${subscriptionId}`;

function envelopeABody(event: EventMessage): string {
  const { callback_url: _ignored, ...data } = event.payload;
  return stringifyExact(envelopeA(event.type, data, event.occurred_at));
}

/** Where a receiver's slow mark is kept: the tenant's variant-A settings, or the subscription. */
type Mark = { readonly kind: 'settings' } | { readonly kind: 'subscription'; readonly id: string };

/** Where a delivery goes and the sealed secret it is signed with (null: unsigned), and its receiver's slow mark. */
interface Target {
  readonly url: string;
  readonly secretCipher: string | null;
  /**
   * Where the mark is kept (null: nowhere, a callback URL of a tenant without settings); a subscription's also
   * counts its consecutive failures.
   */
  readonly mark: Mark | null;
  /** The mark, as read. */
  readonly slowUntil: string | null;
}

/** A variant-A target (a callback URL or the default URL): signed with the tenant's settings' secret, marked there. */
const settingsTarget = (url: string, settings: WebhookSettings | null): Target => ({
  url,
  secretCipher: settings?.secretCipher ?? null,
  mark: settings ? { kind: 'settings' } : null,
  slowUntil: settings?.slowUntil ?? null,
});

/** A variant-B target: the subscription's own secret and mark. */
const subscriptionTarget = (url: string, s: Subscription): Target => ({
  url,
  secretCipher: s.secretCipher,
  mark: { kind: 'subscription', id: s.id },
  slowUntil: s.slowUntil ?? null,
});

/** A delivery an event yields, with its target as read when planning. */
export interface PlannedDelivery {
  readonly delivery: Delivery;
  readonly target: Target;
}

/**
 * The deliveries an event yields (pure apart from one read: the tenant's variant-A settings for a delivery event,
 * its subscriptions for a subscription event), each with the target its first attempt is sent to.
 */
export async function deliveriesFor(
  event: EventMessage,
  now: Date,
  deps: Pick<DeliveryDeps, 'webhookSettings' | 'webhookSubscriptions'>,
): Promise<PlannedDelivery[]> {
  const base = { tenantId: event.tenant_id, eventId: event.event_id, eventType: event.type, webhookId: event.event_id };
  const out: PlannedDelivery[] = [];
  if (isDeliveryEvent(event.type)) {
    // Per-object callbacks and the default URL are signed with the tenant's variant-A secret (unsigned without one).
    const settings = await deps.webhookSettings.get(event.tenant_id);
    const callback = event.payload.callback_url;
    let destination: Destination | null = null;
    if (typeof callback === 'string' && callback !== '') destination = { kind: 'callback', url: callback };
    else if (settings && defaultUrlReceives(settings.enabledEvents, event.type)) destination = { kind: 'default', url: settings.url };
    if (destination) {
      out.push({
        delivery: newDelivery({ ...base, deliveryId: variantADeliveryId(event.event_id), destination, body: envelopeABody(event) }, now),
        target: settingsTarget(destination.url, settings),
      });
    }
  }
  if (isSubscriptionEvent(event.type)) {
    const subscriptions = (await deps.webhookSubscriptions.list(event.tenant_id)).filter(
      (s) => isActiveSubscription(s) && subscriptionMatches(s.eventTypes, event.type),
    );
    const body = stringifyExact(envelopeB(event.event_id, event.type, event.occurred_at, event.payload));
    for (const s of subscriptions) {
      const destination: Destination = { kind: 'subscription', url: s.url, subscriptionId: s.id };
      out.push({
        delivery: newDelivery({ ...base, deliveryId: subscriptionDeliveryId(event.event_id, s.id), destination, body }, now),
        target: subscriptionTarget(s.url, s),
      });
    }
  }
  return out;
}

/**
 * Creates the event's deliveries (idempotent), each holding the lease of attempt 1, and sends those it created at
 * once, side by side. A delivery that existed already (a replayed event) and still waits for its first attempt
 * gets a delivery message (duplicates are harmless: the claim decides). Throws, once every attempt is over, if
 * one of them failed to run, so that the event comes back.
 */
export async function planDeliveries(event: EventMessage, deps: DeliveryDeps, lane: DeliveryLane = RETRY_LANE): Promise<Delivery[]> {
  const now = deps.clock.now();
  const planned = await deliveriesFor(event, now, deps);
  const leaseUntil = new Date(now.getTime() + LEASE_MS).toISOString();
  const messages: QueuedMessage[] = [];
  const runs = await Promise.allSettled(
    planned.map(async ({ delivery, target }) => {
      const token = randomUUID();
      const claimed: Delivery = { ...delivery, leaseToken: token, leaseUntil };
      if (await deps.webhookDeliveries.create(claimed, now)) {
        await runAttempt(claimed, 1, token, target, now, deps, lane);
        return;
      }
      const current = await deps.webhookDeliveries.get(delivery.tenantId, delivery.deliveryId);
      if (current && awaitsFirstAttempt(current)) {
        messages.push({
          body: deliveryMessageBody({ tenant_id: delivery.tenantId, delivery_id: delivery.deliveryId, attempt: 1, due_at: now.toISOString() }),
          delaySeconds: 0,
        });
      }
    }),
  );
  if (messages.length > 0) await deps.deliveryQueue.send(messages);
  const failed = runs.find(isRejected);
  if (failed) throw failed.reason;
  return planned.map((p) => p.delivery);
}

/* ------------------------------------------------------------------ sending -------------------------------- */

/** The target of a claimed delivery, read fresh (a retry signs with the secret as it is now). */
async function targetOf(delivery: Delivery, deps: Pick<DeliveryDeps, 'webhookSettings' | 'webhookSubscriptions'>): Promise<Target | null> {
  const d = delivery.destination;
  if (d.kind === 'subscription') {
    const sub = await deps.webhookSubscriptions.get(delivery.tenantId, d.subscriptionId);
    return sub ? subscriptionTarget(d.url, sub) : null;
  }
  return settingsTarget(d.url, await deps.webhookSettings.get(delivery.tenantId));
}

export interface AttemptReport {
  readonly outcome: Outcome;
  /** Present when this call made an attempt. */
  readonly answer?: WebhookAnswer;
  readonly delivery?: Delivery;
}

export async function processDelivery(message: DeliveryMessage, deps: DeliveryDeps, lane: DeliveryLane = RETRY_LANE): Promise<AttemptReport> {
  const { clock, retryQueue: queue, webhookDeliveries: deliveries } = deps;
  const now = clock.now();
  const dueAt = new Date(message.due_at);
  if (dueAt.getTime() > now.getTime()) {
    // Not yet due (a delay longer than SQS allows): pass it on for the rest, once per hop however many copies arrive,
    // on the retry lane (only retries are due later).
    const relay = await deliveries.claimRelay(message.tenant_id, message.delivery_id, message.attempt, message.hop, now, new Date(now.getTime() + LEASE_MS));
    if (relay !== 'claimed') return { outcome: relay === 'held' ? 'retry' : 'done' };
    await queue.send([{ body: deliveryMessageBody({ ...message, hop: message.hop + 1 }), delaySeconds: Math.max(1, queueDelaySeconds(dueAt, now)) }]);
    await deliveries.relaySent(message.tenant_id, message.delivery_id, message.attempt, message.hop);
    return { outcome: 'done' };
  }
  const settled = (d: Delivery | null) => !d || !isPendingDelivery(d) || d.attempts >= message.attempt;
  const token = randomUUID();
  const delivery = await deliveries.claimAttempt(
    message.tenant_id,
    message.delivery_id,
    message.attempt,
    token,
    now,
    new Date(now.getTime() + LEASE_MS),
    message.lease,
  );
  if (!delivery) {
    // Done already, or another copy holds it (ask for this one back later), or its predecessor is not recorded yet.
    return { outcome: settled(await deliveries.get(message.tenant_id, message.delivery_id)) ? 'done' : 'retry' };
  }

  const target = await targetOf(delivery, deps);
  if (!target) {
    await deliveries.completeAttempt(message.tenant_id, message.delivery_id, message.attempt, token, { status: 'failed', nextDueAt: null, at: now });
    return { outcome: 'done' };
  }
  const answer = await runAttempt(delivery, message.attempt, token, target, now, deps, lane);
  return answer ? { outcome: 'done', answer, delivery } : { outcome: 'done', delivery };
}

/** Sets or clears a receiver's slow mark where it is kept. */
async function mark(tenantId: string, target: Target, until: Date | null, deps: DeliveryDeps): Promise<void> {
  if (target.mark?.kind === 'settings') await deps.webhookSettings.markSlow(tenantId, until);
  else if (target.mark?.kind === 'subscription') await deps.webhookSubscriptions.markSlow(tenantId, target.mark.id, until);
}

/** Hands attempt `attempt`, whose lease this caller holds (`token`), to the retry lane, due now. */
async function handOver(delivery: Delivery, attempt: number, token: string, now: Date, deps: DeliveryDeps): Promise<void> {
  await deps.retryQueue.send([
    {
      body: deliveryMessageBody({ tenant_id: delivery.tenantId, delivery_id: delivery.deliveryId, attempt, due_at: now.toISOString(), lease: token }),
      delaySeconds: 0,
    },
  ]);
}

/**
 * Makes attempt `attempt` of a delivery whose lease this caller holds, as its lane does (see 5. above); the
 * answer, or undefined when the attempt was handed to the retry lane.
 */
async function runAttempt(
  delivery: Delivery,
  attempt: number,
  token: string,
  target: Target,
  now: Date,
  deps: DeliveryDeps,
  lane: DeliveryLane,
): Promise<WebhookAnswer | undefined> {
  const slow = isMarkedSlow(target.slowUntil, now);
  if (lane.kind === 'retry') {
    const answer = await post(delivery, target, DELIVERY_TIMEOUT_MS, deps);
    await recordAttempt(delivery, attempt, token, target, answer, now, deps);
    if (slow && answeredInTime(answer)) await mark(delivery.tenantId, target, null, deps);
    return answer;
  }
  if (slow) {
    await handOver(delivery, attempt, token, now, deps);
    return undefined;
  }
  const leave = await lane.gate.enter(delivery.tenantId);
  if (!leave) {
    await handOver(delivery, attempt, token, now, deps);
    return undefined;
  }
  let answer: WebhookAnswer;
  try {
    answer = await post(delivery, target, FIRST_LANE_TIMEOUT_MS, deps);
  } finally {
    leave();
  }
  if (answer.timedOut) {
    lane.gate.timedOut(delivery.tenantId);
    await handOver(delivery, attempt, token, now, deps);
    await mark(delivery.tenantId, target, slowMarkUntil(deps.clock.now()), deps);
    return undefined;
  }
  await recordAttempt(delivery, attempt, token, target, answer, now, deps);
  return answer;
}

/** Posts the delivery to its target, signed, waiting at most `timeoutMs`. */
async function post(delivery: Delivery, target: Target, timeoutMs: number, deps: DeliveryDeps): Promise<WebhookAnswer> {
  const secret = target.secretCipher === null ? null : await deps.webhookSecrets.decrypt(target.secretCipher, delivery.tenantId);
  return deps.webhookSender({
    url: target.url,
    body: delivery.body,
    headers: signatureHeaders(secret, delivery.webhookId, deps.clock.now(), delivery.body),
    timeoutMs,
  });
}

/**
 * Records the answer to attempt `attempt`, whose lease this caller holds (`token`): the next attempt is enqueued on
 * the retry lane BEFORE the outcome is recorded, so a crash in between repeats this attempt (same webhook-id)
 * instead of losing the delivery.
 */
async function recordAttempt(
  delivery: Delivery,
  attempt: number,
  token: string,
  target: Target,
  answer: WebhookAnswer,
  now: Date,
  deps: DeliveryDeps,
): Promise<void> {
  const { clock, retryQueue: queue, webhookDeliveries: deliveries } = deps;
  const succeeded = isSuccessStatus(answer.statusCode);
  const delay = succeeded ? null : retryDelaySeconds(attempt);
  const nextDue = delay === null ? null : new Date(now.getTime() + delay * 1000);
  const status = succeeded ? 'succeeded' : nextDue ? 'pending' : 'failed';

  if (nextDue) {
    await queue.send([
      {
        body: deliveryMessageBody({ tenant_id: delivery.tenantId, delivery_id: delivery.deliveryId, attempt: attempt + 1, due_at: nextDue.toISOString() }),
        delaySeconds: queueDelaySeconds(nextDue, clock.now()),
      },
    ]);
  }
  // Two writes side by side rather than a transaction (half the latency on the hot path): a crash between them
  // loses at most a log line or repeats the attempt, never a delivery.
  await Promise.all([
    deliveries.completeAttempt(delivery.tenantId, delivery.deliveryId, attempt, token, { status, nextDueAt: nextDue?.toISOString() ?? null, at: now }),
    deps.webhookAttempts.add({
      tenantId: delivery.tenantId,
      deliveryId: delivery.deliveryId,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      webhookId: delivery.webhookId,
      url: target.url,
      attempt,
      at: now.toISOString(),
      requestBody: delivery.body.slice(0, 16_384),
      statusCode: answer.statusCode,
      latencyMs: answer.latencyMs,
      responseExcerpt: answer.excerpt,
      error: answer.error ?? (succeeded ? null : `HTTP ${answer.statusCode}`),
      succeeded,
    }),
  ]);
  (deps.emit ?? emitMetrics)(METRIC_NAMESPACES.webhooks, {}, [
    { name: METRIC_NAMES.webhookAttemptSucceeded, value: succeeded ? 1 : 0 },
    { name: METRIC_NAMES.webhookAttemptLatency, value: answer.latencyMs, unit: 'Milliseconds' },
  ]);
  if (target.mark?.kind === 'subscription')
    await deps.webhookSubscriptions.recordAttempt(delivery.tenantId, target.mark.id, succeeded, now, SUBSCRIPTION_FAILURE_LIMIT);
}
