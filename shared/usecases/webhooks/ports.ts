import type { EVENTS } from '../../domain/events.js';
import type { Clock } from '../../domain/clock.js';
import type { AttemptLog, AttemptOutcome, Delivery, Subscription, WebhookSettings } from '../../domain/webhooks.js';
import type { Resolver } from '../../net/callback-url.js';

/**
 * What the webhook use cases need from the outside world. The real adapters live in shared/store/webhooks/
 * (DynamoDB), shared/webhooks/ (HTTP sender, SQS delivery queue, KMS secret box) and are wired in
 * shared/runtime/webhooks.ts; tests pass the in-memory fakes of test/support/fakes/webhooks.ts.
 */

/** Who changes webhook settings: recorded in `security.settings_changed`. */
export interface Actor {
  readonly tenantId: string;
  /** `token:<client id>` or `api_key:<key id>`, recorded in the security event. */
  readonly credential: string;
}

/** A security event (`security.settings_changed`, `security.login_attempt`) committed with the change it reports. */
export interface SecurityEvent {
  readonly tenantId: string;
  readonly type: typeof EVENTS.securitySettingsChanged | typeof EVENTS.securityLoginAttempt;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly at: Date;
}

export interface WebhookSettingsRepository {
  get(tenantId: string): Promise<WebhookSettings | null>;
  /**
   * Writes the settings with `change` in one transaction: `expectedUpdatedAt` null means "must not exist yet",
   * else the stored `updatedAt` must still be that (optimistic concurrency). False when that condition failed.
   */
  save(settings: WebhookSettings, expectedUpdatedAt: string | null, change: SecurityEvent): Promise<boolean>;
  /** Sets (a date) or clears (null) the slow mark of the tenant's variant-A receivers; no-op without settings. */
  markSlow(tenantId: string, until: Date | null): Promise<void>;
}

export type CreateSubscriptionResult = 'created' | 'duplicate_url' | 'limit_reached';

export interface WebhookSubscriptionRepository {
  get(tenantId: string, id: string): Promise<Subscription | null>;
  /** The tenant's subscriptions, oldest first. */
  list(tenantId: string): Promise<Subscription[]>;
  /** Creates the subscription with its URL guard and the tenant's count (at most `maxPerTenant`), and `change`. */
  create(subscription: Subscription, maxPerTenant: number, change: SecurityEvent): Promise<CreateSubscriptionResult>;
  /** Deletes it with its URL guard, counts it down, and writes `change`; false when it was already gone. */
  delete(subscription: Subscription, change: SecurityEvent): Promise<boolean>;
  /**
   * Records one attempt: a success resets `failureCount`; a failure adds one and, at `failureLimit`, turns the
   * subscription inactive. `lastTriggeredAt` is set either way. No-op when it was deleted.
   */
  recordAttempt(tenantId: string, id: string, succeeded: boolean, at: Date, failureLimit: number): Promise<void>;
  /** Sets (a date) or clears (null) the subscription's slow mark; no-op when it was deleted. */
  markSlow(tenantId: string, id: string, until: Date | null): Promise<void>;
}

export type RelayClaim = 'claimed' | 'held' | 'done';

export interface WebhookDeliveryRepository {
  /**
   * Creates the delivery unless it exists (a replayed event); true when this call created it. A delivery with a
   * lease (`leaseToken`, `leaseUntil`) is created claimed: its creator holds attempt 1.
   */
  create(delivery: Delivery, now: Date, options?: { readonly awaitsFirstAttempt?: boolean }): Promise<boolean>;
  get(tenantId: string, deliveryId: string): Promise<Delivery | null>;
  /**
   * Claims attempt `attempt` (1-based): only while the delivery is pending, exactly `attempt - 1` attempts are
   * recorded and no other worker holds an unexpired lease, or the lease is `handedOver` (the token of the first
   * lane's claim, handed to the retry lane with the attempt). Null when another copy of the message won.
   */
  claimAttempt(
    tenantId: string,
    deliveryId: string,
    attempt: number,
    token: string,
    now: Date,
    leaseUntil: Date,
    handedOver?: string,
  ): Promise<Delivery | null>;
  /**
   * A message that arrived before its attempt is due is passed on (re-enqueued) as hop h+1. Only one copy of hop
   * h may pass it on: the first marks the relay unsent with a lease, enqueues, then marks it sent; a copy finding
   * an unsent relay whose lease ran out takes it over. 'held': another copy holds a live lease; 'done': nothing
   * is left to do for this copy.
   */
  claimRelay(tenantId: string, deliveryId: string, attempt: number, hop: number, now: Date, leaseUntil: Date): Promise<RelayClaim>;
  relaySent(tenantId: string, deliveryId: string, attempt: number, hop: number): Promise<void>;
  /** Records the outcome of a claimed attempt while still holding the lease; false when the lease was lost. */
  completeAttempt(tenantId: string, deliveryId: string, attempt: number, token: string, outcome: AttemptOutcome): Promise<boolean>;
}

/** Where a page of the attempt log ends: the last attempt listed (the next page continues after it). */
export interface AttemptPosition {
  readonly at: string;
  readonly deliveryId: string;
  readonly attempt: number;
}

export interface AttemptLogRepository {
  add(log: AttemptLog): Promise<void>;
  /** Attempts since `since`, newest first, of the tenant's own log; `after` is the position to continue after. */
  list(tenantId: string, since: Date, limit: number, after: AttemptPosition | null): Promise<{ items: AttemptLog[]; next: AttemptPosition | null }>;
}

/** Writes a security event on its own (the event is the whole change). */
export interface SecurityEventLog {
  record(event: SecurityEvent): Promise<void>;
}

/** Webhook secrets at rest, sealed per tenant. */
export interface SecretBox {
  encrypt(plain: string, tenantId: string): Promise<string>;
  decrypt(ciphertext: string, tenantId: string): Promise<string>;
}

export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** How long to wait for the answer (default DELIVERY_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

export interface WebhookAnswer {
  /** HTTP status, or null when no answer came. */
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly excerpt: string;
  readonly error: string | null;
  /** True when no answer came within the request's timeout. */
  readonly timedOut?: boolean;
}

/** Posts one webhook; never throws for what the receiver did (refused, timeout, non-2xx are answers). */
export type WebhookSender = (request: WebhookRequest) => Promise<WebhookAnswer>;

export interface QueuedMessage {
  readonly body: string;
  readonly delaySeconds: number;
}

/** The `webhook-delivery` queue, or the retry lane's `webhook-retries` (SQS in the worker; a fake in virtual-time tests). */
export interface DeliveryQueue {
  send(messages: readonly QueuedMessage[]): Promise<void>;
}

/** The callback-URL policy as configured (`ALLOW_LOOPBACK_CALLBACKS`), and name resolution (tests fake it). */
export interface CallbackSettings {
  readonly allowLoopback: boolean;
  readonly resolve?: Resolver;
}

/** Every port of the webhook use cases; each use case takes the `Pick` it needs. */
export interface WebhookPorts {
  readonly clock: Clock;
  readonly webhookSettings: WebhookSettingsRepository;
  readonly webhookSubscriptions: WebhookSubscriptionRepository;
  readonly webhookDeliveries: WebhookDeliveryRepository;
  readonly webhookAttempts: AttemptLogRepository;
  readonly securityEvents: SecurityEventLog;
  readonly webhookSecrets: SecretBox;
  readonly webhookSender: WebhookSender;
  /** The first lane: events and first attempts (`webhook-delivery`). */
  readonly deliveryQueue: DeliveryQueue;
  /** The retry lane: attempts handed over by the first lane, and every later attempt (`webhook-retries`). */
  readonly retryQueue: DeliveryQueue;
  readonly callbacks: CallbackSettings;
}

/** What the delivery worker needs (planning and sending). */
export type DeliveryPorts = Pick<
  WebhookPorts,
  | 'clock'
  | 'webhookSettings'
  | 'webhookSubscriptions'
  | 'webhookDeliveries'
  | 'webhookAttempts'
  | 'webhookSecrets'
  | 'webhookSender'
  | 'deliveryQueue'
  | 'retryQueue'
>;
