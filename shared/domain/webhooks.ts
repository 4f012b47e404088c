/**
 * Webhooks, the pure part (spec sections 2.9, 6; DESIGN section 7): the event catalogue, which destination
 * receives which event, the two envelopes, the retry schedule and the delivery states. Signing (HMAC) lives in
 * shared/webhooks/signing.ts because `node:crypto` stays out of the domain.
 */

/** Section 6.1: delivered in envelope A to the object's callback_url or the tenant's default URL. */
export const DELIVERY_EVENTS = [
  'payment_status_update',
  'deposit_received',
  'withdrawal_status_update',
  'deposit_merged',
  'wallet_transfer_status_update',
  'custody_deposit_update',
  'custody_withdrawal_update',
  'refund_status_update',
  // Issue 30.
  'subscription_status_update',
] as const;
export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

/** Section 6.2: variant-B subscription types (`.all` subscribes to the whole family). */
export const SUBSCRIPTION_EVENTS = [
  'payment.created',
  'payment.processing',
  'payment.completed',
  'payment.failed',
  'payment.expired',
  'payment.all',
  'withdrawal.created',
  'withdrawal.approved',
  'withdrawal.processing',
  'withdrawal.completed',
  'withdrawal.failed',
  'withdrawal.cancelled',
  'withdrawal.status_changed',
  'withdrawal.all',
  'refund.created',
  'refund.completed',
  'refund.failed',
  'refund.all',
  'wallet.created',
  'wallet.balance_changed',
  'wallet.all',
  'security.login_attempt',
  'security.settings_changed',
  'security.all',
  // Issue 30.
  'subscription.created',
  'subscription.activated',
  'subscription.cycle_opened',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.canceled',
  'subscription.expired',
  'subscription.all',
] as const;
export type SubscriptionEvent = (typeof SUBSCRIPTION_EVENTS)[number];

export const isDeliveryEvent = (type: string): type is DeliveryEvent => (DELIVERY_EVENTS as readonly string[]).includes(type);
export const isSubscriptionEvent = (type: string): type is SubscriptionEvent => (SUBSCRIPTION_EVENTS as readonly string[]).includes(type);
export const isKnownEvent = (type: string): boolean => isDeliveryEvent(type) || isSubscriptionEvent(type);

/** Unknown names among `types` (for `invalid_event_types`). */
export const unknownSubscriptionTypes = (types: readonly string[]): string[] => types.filter((t) => !isSubscriptionEvent(t));

/** True when a subscription to `subscribed` receives an event of type `type` (exact, or its family's `.all`). */
export function subscriptionMatches(subscribed: readonly string[], type: string): boolean {
  if (!isSubscriptionEvent(type) || type.endsWith('.all')) return false;
  const family = type.slice(0, type.indexOf('.'));
  return subscribed.includes(type) || subscribed.includes(`${family}.all`);
}

/** Variant A's `enabled_events` filters what the default URL receives; an unset list means every 6.1 event. */
export function defaultUrlReceives(enabledEvents: readonly string[] | null, type: string): boolean {
  if (!isDeliveryEvent(type)) return false;
  return enabledEvents === null || enabledEvents.includes(type);
}

/** Envelope A (section 6.1). */
export interface EnvelopeA {
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly timestamp: string;
}

/** Envelope B (section 6.2): `id` is the notification id, the same on every repeat (also the `webhook-id`). */
export interface EnvelopeB {
  readonly id: string;
  readonly event: string;
  readonly created_at: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export const envelopeA = (event: string, data: Readonly<Record<string, unknown>>, timestamp: string): EnvelopeA => ({ event, data, timestamp });
export const envelopeB = (id: string, event: string, createdAt: string, data: Readonly<Record<string, unknown>>): EnvelopeB => ({
  id,
  event,
  created_at: createdAt,
  data,
});

/**
 * Retries after the first attempt (section 6.3): 1 m, 5 m, 15 m, 1 h, 4 h. Attempt n+1 is due DELAY[n-1] after
 * attempt n; the delivery is `failed` when attempt 6 (the fifth retry) fails.
 */
export const RETRY_DELAYS_SECONDS = [60, 300, 900, 3600, 14400] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** Seconds until the attempt after failed attempt `attempt` (1-based), or null when none is left. */
export function retryDelaySeconds(attempt: number): number | null {
  return RETRY_DELAYS_SECONDS[attempt - 1] ?? null;
}

/** SQS holds a message at most 900 s: longer waits re-enqueue with the rest (DESIGN section 6). */
export const MAX_QUEUE_DELAY_SECONDS = 900;

export function queueDelaySeconds(dueAt: Date, now: Date): number {
  const remaining = Math.ceil((dueAt.getTime() - now.getTime()) / 1000);
  return Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, remaining));
}

/**
 * The queue whose consumer takes the webhook events of one committed change (one outbox item) as one message: the
 * event router sends a change's events to `webhook-delivery` together, so a payment's change (a deposit with its
 * status update, a completion with its merge and status updates) is one message and one invocation, not one per
 * event. The worker plans them side by side, as it would plan them arriving in one batch; a message that fails
 * comes back whole, and the events planned already find their deliveries (created conditionally) and send nothing twice.
 */
export const CHANGE_MESSAGE_QUEUE = 'webhook-delivery';

/**
 * The text of a change message (`{"kind":"webhook_events","v":1,"events":[...]}`, parsed by
 * shared/usecases/webhooks/deliver.ts): the events' own message bodies (JSON objects, numbers kept as written) as they are.
 */
export const changeMessageBody = (bodies: readonly string[]): string => `{"kind":"webhook_events","v":1,"events":[${bodies.join(',')}]}`;

/**
 * The text of a delivery message (`{"kind":"webhook_delivery","v":1,...}`, parsed by `DeliveryMessage` in
 * shared/usecases/webhooks/deliver.ts): attempt `attempt` of a delivery, due at `due_at`; `hop` counts relays of a
 * delay longer than SQS holds; `lease` is the claim a first-lane hand-over passes on.
 */
export const deliveryMessageBody = (m: {
  readonly tenant_id: string;
  readonly delivery_id: string;
  readonly attempt: number;
  readonly due_at: string;
  readonly hop?: number;
  readonly lease?: string | undefined;
}): string =>
  JSON.stringify({
    kind: 'webhook_delivery',
    v: 1,
    tenant_id: m.tenant_id,
    delivery_id: m.delivery_id,
    attempt: m.attempt,
    due_at: m.due_at,
    hop: m.hop ?? 0,
    ...(m.lease ? { lease: m.lease } : {}),
  });

/** A receiver has this long to answer (section 6.3 via the issue: 10 s timeout is a failure). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/*
 * Two lanes (DESIGN section 7; docs/decisions/0016-webhook-first-and-retry-lanes.md). The first lane
 * (`webhook-delivery`) plans events and sends their first attempts, but waits for a receiver only
 * FIRST_LANE_TIMEOUT_MS: a receiver that has not answered by then is not failed, its attempt is handed over, as
 * it is, to the retry lane (`webhook-retries`), which makes it with the full DELIVERY_TIMEOUT_MS and runs every
 * later attempt. The receiver is marked slow for SLOW_MARK_MS: its next first attempts go straight to the retry
 * lane, until the mark runs out or an answer within FIRST_LANE_TIMEOUT_MS clears it. Within one worker process, a
 * tenant has at most FIRST_LANE_TENANT_LIMIT first attempts in flight; one more waits at most FIRST_LANE_WAIT_MS
 * for a place, else it is handed over too (and none for FIRST_LANE_HOLD_MS after a timeout). So a receiver that hangs holds the first lane's batches of its own
 * tenant for at most FIRST_LANE_TIMEOUT_MS, once per mark, and never more than a few of them.
 */
export const FIRST_LANE_TIMEOUT_MS = 2_000;
export const SLOW_MARK_MS = 5 * 60_000;
export const FIRST_LANE_TENANT_LIMIT = 10;
export const FIRST_LANE_WAIT_MS = 100;
/** After one of its first attempts got no answer in time, a tenant gets no first-lane place in that process for this long. */
export const FIRST_LANE_HOLD_MS = 10_000;
/*
 * The retry lane bounds a tenant too: within one worker process at most RETRY_LANE_TENANT_LIMIT of its attempts are
 * in flight; a due message beyond them is not claimed but sent back to the retry queue, unchanged, due again after
 * RETRY_LANE_DEFER_SECONDS. So a tenant whose receiver hangs holds a few of the lane's places for the full timeout,
 * and its timeouts end a few at a time rather than all at once, while other tenants' retries keep their places.
 */
export const RETRY_LANE_TENANT_LIMIT = 5;
export const RETRY_LANE_DEFER_SECONDS = 5;

/** True while a receiver's slow mark (`slowUntil`, ISO 8601 or null) holds at `now`. */
export const isMarkedSlow = (slowUntil: string | null | undefined, now: Date): boolean =>
  typeof slowUntil === 'string' && Date.parse(slowUntil) > now.getTime();
/** The mark a slow answer sets at `now`. */
export const slowMarkUntil = (now: Date): Date => new Date(now.getTime() + SLOW_MARK_MS);
/** An answer that clears a mark: a success within the first lane's timeout. */
export const answeredInTime = (answer: { readonly statusCode: number | null; readonly latencyMs: number }): boolean =>
  isSuccessStatus(answer.statusCode) && answer.latencyMs < FIRST_LANE_TIMEOUT_MS;
export const isSuccessStatus = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Variant B: at most 10 subscriptions per tenant; inactive after 5 consecutive failed attempts. */
export const MAX_SUBSCRIPTIONS = 10;
export const SUBSCRIPTION_FAILURE_LIMIT = 5;
export const SUBSCRIPTION_STATUSES = ['active', 'inactive'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** A subscription that gets new events (an inactive one gets none; attempts already scheduled run out). */
export const isActiveSubscription = (s: { readonly status: SubscriptionStatus }): boolean => s.status === 'active';
/** A delivery whose attempts are not over (neither succeeded nor failed for good). */
export const isPendingDelivery = (d: { readonly status: DeliveryStatus }): boolean => d.status === 'pending';
/** A pending delivery not attempted yet: its first attempt is still to be sent. */
export const awaitsFirstAttempt = (d: { readonly status: DeliveryStatus; readonly attempts: number }): boolean => isPendingDelivery(d) && d.attempts === 0;

export function subscriptionAfterAttempt(
  current: { readonly failureCount: number; readonly status: SubscriptionStatus },
  succeeded: boolean,
): { failureCount: number; status: SubscriptionStatus } {
  if (succeeded) return { failureCount: 0, status: current.status };
  const failureCount = current.failureCount + 1;
  return { failureCount, status: failureCount >= SUBSCRIPTION_FAILURE_LIMIT ? 'inactive' : current.status };
}

/** `whsec_` + base64 of 32 random bytes (DESIGN section 7). */
export const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;
export const isWebhookSecret = (text: string): boolean => WEBHOOK_SECRET_PATTERN.test(text);

/**
 * The minimum strength of a secret a merchant chooses (`PATCH /user/webhooks/`): at least 32 characters of
 * printable ASCII, or a `whsec_` secret whose base64 part decodes to at least 24 bytes (the Standard Webhooks key).
 */
export const CHOSEN_SECRET_RULE =
  'A webhook_secret is "rotate" (a new random secret), at least 32 characters of printable ASCII without spaces, or whsec_ + base64 of at least 24 bytes.';
export const CHOSEN_SECRET_MIN_CHARS = 32;
export const CHOSEN_SECRET_MIN_BYTES = 24;
const CHOSEN_SECRET_MAX_CHARS = 256;

export function isStrongChosenSecret(text: string): boolean {
  if (text.length > CHOSEN_SECRET_MAX_CHARS || !/^[\x21-\x7e]+$/.test(text)) return false;
  if (text.startsWith('whsec_')) {
    const key = text.slice('whsec_'.length);
    return /^[A-Za-z0-9+/]+={0,2}$/.test(key) && key.length % 4 === 0 && Buffer.from(key, 'base64').length >= CHOSEN_SECRET_MIN_BYTES;
  }
  return text.length >= CHOSEN_SECRET_MIN_CHARS;
}

/**
 * Only the first 12 characters of a generated (`whsec_`) secret are shown after it was first returned (section
 * 2.8); of any other secret (a merchant's own) only the first 4, so the hint gives little of it away.
 */
export const SECRET_HINT_LENGTH = 12;
export const secretHint = (secret: string): string => secret.slice(0, secret.startsWith('whsec_') ? SECRET_HINT_LENGTH : 4);
export const maskedSecret = (hint: string): string => `${hint}${'*'.repeat(8)}`;

/** Attempt logs (and delivery records) are kept this long. */
export const DELIVERY_LOG_DAYS = 30;
/** At most this much of an answer is kept in the attempt log. */
export const RESPONSE_EXCERPT_CHARS = 500;

/* ------------------------------------------------------------------ entities ------------------------------- */

/** Variant-A settings: the tenant's default URL and its signing secret (sealed). */
export interface WebhookSettings {
  readonly tenantId: string;
  readonly url: string;
  readonly secretCipher: string;
  readonly secretHint: string;
  /** null: every delivery event. */
  readonly enabledEvents: readonly string[] | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The tenant's variant-A receivers answered slowly: first attempts go to the retry lane until then (null: none). */
  readonly slowUntil?: string | null;
}

/** A variant-B subscription. */
export interface Subscription {
  readonly tenantId: string;
  readonly id: string;
  readonly url: string;
  readonly urlHash: string;
  readonly eventTypes: readonly string[];
  readonly status: SubscriptionStatus;
  readonly createdAt: string;
  readonly lastTriggeredAt: string | null;
  readonly failureCount: number;
  readonly secretCipher: string;
  readonly secretHint: string;
  readonly description: string | null;
  /** Its receiver answered slowly: first attempts go to the retry lane until then (null: none). */
  readonly slowUntil?: string | null;
}

/** Where a delivery goes: an object's callback_url, the default URL (both envelope A) or a subscription (B). */
export type Destination =
  | { readonly kind: 'callback'; readonly url: string }
  | { readonly kind: 'default'; readonly url: string }
  | { readonly kind: 'subscription'; readonly url: string; readonly subscriptionId: string };

/** One event to one destination, keyed by that natural id; attempted until it succeeds or runs out of retries. */
export interface Delivery {
  readonly tenantId: string;
  readonly deliveryId: string;
  readonly eventId: string;
  readonly eventType: string;
  /** Standard Webhooks `webhook-id`: the same on every attempt and redelivery. */
  readonly webhookId: string;
  readonly destination: Destination;
  /** The exact request body, identical on every attempt. */
  readonly body: string;
  readonly status: DeliveryStatus;
  /** Attempts completed (recorded). */
  readonly attempts: number;
  readonly createdAt: string;
  readonly nextDueAt: string | null;
  readonly leaseToken: string | null;
  readonly leaseUntil: string | null;
}

/** The outcome of a claimed attempt, as recorded on its delivery. */
export interface AttemptOutcome {
  readonly status: DeliveryStatus;
  readonly nextDueAt: string | null;
  readonly at: Date;
}

/** One line of the attempt log (kept DELIVERY_LOG_DAYS). */
export interface AttemptLog {
  readonly tenantId: string;
  readonly deliveryId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly webhookId: string;
  readonly url: string;
  readonly attempt: number;
  readonly at: string;
  readonly requestBody: string;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly responseExcerpt: string;
  readonly error: string | null;
  readonly succeeded: boolean;
}

/** A fresh delivery of `body` to `destination`, due now. */
export function newDelivery(
  fields: Pick<Delivery, 'tenantId' | 'deliveryId' | 'eventId' | 'eventType' | 'webhookId' | 'destination' | 'body'>,
  now: Date,
): Delivery {
  return { ...fields, status: 'pending', attempts: 0, createdAt: now.toISOString(), nextDueAt: now.toISOString(), leaseToken: null, leaseUntil: null };
}
