import * as z from 'zod';
import { DELIVERY_EVENTS, isDeliveryEvent, isSubscriptionEvent, maskedSecret, SUBSCRIPTION_EVENTS, SUBSCRIPTION_STATUSES } from '../../domain/webhooks.js';
import type { AttemptLog, Subscription, WebhookSettings } from '../../domain/webhooks.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * What the webhook use cases answer: each response schema beside its presenter, which returns the schema's
 * output type. The routes document the same schemas (functions/user/webhook-routes.ts).
 */

export const SettingsView = lazySchema(() =>
  z.object({
    webhook_url: z.string().nullable(),
    webhook_secret: z.string().nullable(),
    enabled_events: z.array(z.enum(DELIVERY_EVENTS)),
  }),
);
export type SettingsView = LazyOutput<typeof SettingsView>;

const deliveryEvents = (types: readonly string[]): SettingsView['enabled_events'] => types.filter(isDeliveryEvent);

/** Variant-A settings; the secret masked unless it is shown whole once. */
export const settingsView = (s: WebhookSettings | null, wholeSecret?: string): SettingsView => ({
  webhook_url: s?.url ?? null,
  webhook_secret: wholeSecret ?? (s ? maskedSecret(s.secretHint) : null),
  enabled_events: s?.enabledEvents ? deliveryEvents(s.enabledEvents) : [...DELIVERY_EVENTS],
});

export const CallbackUrlView = lazySchema(() => z.object({ callback_url: z.string(), secret: z.string(), message: z.string() }));
export type CallbackUrlView = LazyOutput<typeof CallbackUrlView>;

export const TestWebhookView = lazySchema(() =>
  z.object({
    delivered: z.boolean(),
    delivery_id: z.string(),
    webhook_id: z.string(),
    url: z.string(),
    status_code: z.number().int().nullable(),
    latency_ms: z.number().nullable(),
    error: z.string().nullable(),
  }),
);
export type TestWebhookView = LazyOutput<typeof TestWebhookView>;

export const SubscriptionView = lazySchema(() =>
  z.object({
    id: z.string(),
    url: z.string(),
    event_types: z.array(z.enum(SUBSCRIPTION_EVENTS)),
    status: z.enum(SUBSCRIPTION_STATUSES),
    created_at: z.string(),
    last_triggered_at: z.string().nullable(),
    failure_count: z.number().int(),
    secret: z.string().describe('Whole in the create answer only; masked afterwards'),
    description: z.string().nullable(),
  }),
);
export type SubscriptionView = LazyOutput<typeof SubscriptionView>;

const subscriptionEvents = (types: readonly string[]): SubscriptionView['event_types'] => types.filter(isSubscriptionEvent);

export const subscriptionView = (s: Subscription, wholeSecret?: string): SubscriptionView => ({
  id: s.id,
  url: s.url,
  event_types: subscriptionEvents(s.eventTypes),
  status: s.status,
  created_at: s.createdAt,
  last_triggered_at: s.lastTriggeredAt,
  failure_count: s.failureCount,
  secret: wholeSecret ?? maskedSecret(s.secretHint),
  description: s.description,
});

export const SubscriptionListView = lazySchema(() => z.object({ webhooks: z.array(SubscriptionView()), count: z.number().int() }));
export type SubscriptionListView = LazyOutput<typeof SubscriptionListView>;

export const DeletedSubscriptionView = lazySchema(() => z.object({ deleted: z.boolean(), webhook_id: z.string() }));
export type DeletedSubscriptionView = LazyOutput<typeof DeletedSubscriptionView>;

export const AttemptView = lazySchema(() =>
  z.object({
    delivery_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    webhook_id: z.string(),
    url: z.string(),
    attempt: z.number().int(),
    attempted_at: z.string(),
    request_body: z.string(),
    status_code: z.number().int().nullable(),
    latency_ms: z.number(),
    response_excerpt: z.string(),
    error: z.string().nullable(),
    succeeded: z.boolean(),
  }),
);
export type AttemptView = LazyOutput<typeof AttemptView>;

export const attemptView = (a: AttemptLog): AttemptView => ({
  delivery_id: a.deliveryId,
  event_id: a.eventId,
  event_type: a.eventType,
  webhook_id: a.webhookId,
  url: a.url,
  attempt: a.attempt,
  attempted_at: a.at,
  request_body: a.requestBody,
  status_code: a.statusCode,
  latency_ms: a.latencyMs,
  response_excerpt: a.responseExcerpt,
  error: a.error,
  succeeded: a.succeeded,
});

export const AttemptListView = lazySchema(() => z.object({ results: z.array(AttemptView()), next_cursor: z.string().nullable() }));
export type AttemptListView = LazyOutput<typeof AttemptListView>;

export const RedeliveryView = lazySchema(() => z.object({ delivery_id: z.string(), webhook_id: z.string(), redelivery_of: z.string() }));
export type RedeliveryView = LazyOutput<typeof RedeliveryView>;
