import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { config } from '../../config/config.js';
import { GatewayError, NotFoundError, ValidationError } from '../../domain/errors.js';
import {
  DELIVERY_EVENTS,
  DELIVERY_LOG_DAYS,
  isDeliveryEvent,
  isKnownEvent,
  isWebhookSecret,
  maskedSecret,
  MAX_SUBSCRIPTIONS,
  SUBSCRIPTION_EVENTS,
  secretHint,
  unknownSubscriptionTypes,
} from '../../domain/webhooks.js';
import { checkCallbackUrl } from '../../net/callback-url.js';
import type { Resolver } from '../../net/callback-url.js';
import { outboxEvent, outboxPutItem } from '../../store/outbox.js';
import { transactWrite, TransactionConditionError } from '../../store/transact.js';
import {
  CREATE_SUBSCRIPTION_ITEMS,
  createDelivery,
  createSubscriptionItems,
  deleteSubscriptionItems,
  getDelivery,
  getSubscription,
  getWebhookSettings,
  listAttemptLogs,
  listSubscriptions,
  putWebhookSettingsItem,
} from '../../store/webhooks.js';
import type { Subscription, WebhookSettings } from '../../store/webhooks.js';
import type { TransactItem } from '../../store/transact.js';
import { newWebhookSecret } from '../../webhooks/signing.js';
import { deliveryMessageBody, processDelivery, variantADeliveryId } from './deliver.js';
import type { DeliveryDeps } from './deliver.js';

/**
 * Webhook management (spec 4.6): variant-A settings at `/user/webhooks/`, variant-B subscriptions at
 * `/user/webhooks`, the attempt log and redelivery. Every change writes `security.settings_changed` to the
 * outbox in the same transaction. URLs pass the callback policy (registration; delivery checks again).
 */

export interface Actor {
  readonly tenantId: string;
  /** `token:<client id>` or `api_key:<key id>`, recorded in the security event. */
  readonly credential: string;
}

const policy = () => ({ allowLoopback: config().ALLOW_LOOPBACK_CALLBACKS });
let resolver: Resolver | undefined;
/** Tests replace name resolution (the production policy with a fake resolver). */
export function setRegistrationResolver(r: Resolver | undefined): void {
  resolver = r;
}

async function checkedUrl(raw: unknown, field: string): Promise<string> {
  if (typeof raw !== 'string' || raw.trim() === '') throw new GatewayError('invalid_url', 'A URL is required.', { [field]: ['This field is required.'] });
  const { url } = await checkCallbackUrl(raw.trim(), policy(), resolver, field);
  return url.toString();
}

function settingsChanged(actor: Actor, now: Date, detail: Record<string, unknown>): TransactItem {
  return outboxPutItem(outboxEvent(actor.tenantId, 'security.settings_changed', { setting: 'webhooks', credential: actor.credential, ...detail }, { now }));
}

async function write(items: TransactItem[]): Promise<void> {
  await transactWrite(items);
}

/* ------------------------------------------------------------------ variant A ------------------------------ */

export const CreateSettingsInput = z.object({ callback_url: z.unknown().optional() });
export const PatchSettingsInput = z.object({
  webhook_url: z.unknown().optional(),
  webhook_secret: z.string().optional().describe('A `whsec_` secret, or `rotate` for a new random one (shown once)'),
  enabled_events: z.unknown().optional(),
});

export interface SettingsView {
  readonly webhook_url: string | null;
  readonly webhook_secret: string | null;
  readonly enabled_events: readonly string[];
}

const viewOf = (s: WebhookSettings | null, wholeSecret?: string): SettingsView => ({
  webhook_url: s?.url ?? null,
  webhook_secret: wholeSecret ?? (s ? maskedSecret(s.secretHint) : null),
  enabled_events: s?.enabledEvents ?? [...DELIVERY_EVENTS],
});

export async function getSettingsView(tenantId: string): Promise<SettingsView> {
  return viewOf(await getWebhookSettings(tenantId));
}

/** The variant-A URL and the secret's visible part, for the tenant record (`/user/me/`). */
export async function webhookProfileOf(tenantId: string): Promise<{ url: string | null; secret: string | null }> {
  const s = await getWebhookSettings(tenantId);
  return { url: s?.url ?? null, secret: s?.secretHint ?? null };
}

async function newSecretCipher(tenantId: string, deps: Pick<DeliveryDeps, 'secrets'>, secret = newWebhookSecret()) {
  return { secret, secretCipher: await deps.secrets.encrypt(secret, tenantId), secretHint: secretHint(secret) };
}

/** POST /user/webhooks/: creates the settings (secret returned whole, once) or changes the URL. */
export async function setCallbackUrl(
  actor: Actor,
  input: z.infer<typeof CreateSettingsInput>,
  now: Date,
  deps: Pick<DeliveryDeps, 'secrets'>,
): Promise<{ callback_url: string; secret: string; message: string }> {
  const url = await checkedUrl(input.callback_url, 'callback_url');
  const existing = await getWebhookSettings(actor.tenantId);
  if (existing) {
    const next = { ...existing, url, updatedAt: now.toISOString() };
    await write([putWebhookSettingsItem(next, existing.updatedAt), settingsChanged(actor, now, { action: 'updated', fields: ['webhook_url'] })]);
    return { callback_url: url, secret: maskedSecret(existing.secretHint), message: 'Webhook URL updated; the secret is unchanged.' };
  }
  const { secret, secretCipher, secretHint: hint } = await newSecretCipher(actor.tenantId, deps);
  const settings: WebhookSettings = { tenantId: actor.tenantId, url, secretCipher, secretHint: hint, enabledEvents: null, createdAt: now.toISOString(), updatedAt: now.toISOString() };
  try {
    await write([putWebhookSettingsItem(settings, null), settingsChanged(actor, now, { action: 'created', fields: ['webhook_url', 'webhook_secret'] })]);
  } catch (error) {
    if (error instanceof TransactionConditionError) return setCallbackUrl(actor, input, now, deps);
    throw error;
  }
  return { callback_url: url, secret, message: 'Webhook settings created. Store the secret now: it is not shown again.' };
}

function enabledEventsOf(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.some((t) => typeof t !== 'string')) {
    throw new GatewayError('invalid_event_types', 'enabled_events must be an array of event types.', { enabled_events: ['Expected an array of strings.'] });
  }
  const unknown = (raw as string[]).filter((t) => !isDeliveryEvent(t));
  if (unknown.length > 0) {
    throw new GatewayError('invalid_event_types', `Unknown event types: ${unknown.join(', ')}.`, { enabled_events: unknown.map((t) => `Unknown event type: ${t}`), allowed: [...DELIVERY_EVENTS] });
  }
  return [...new Set(raw as string[])];
}

/** PATCH /user/webhooks/: webhook_url, webhook_secret (`rotate` or a `whsec_` secret), enabled_events. */
export async function patchSettings(
  actor: Actor,
  input: z.infer<typeof PatchSettingsInput>,
  now: Date,
  deps: Pick<DeliveryDeps, 'secrets'>,
): Promise<SettingsView> {
  const existing = await getWebhookSettings(actor.tenantId);
  const url = input.webhook_url === undefined ? existing?.url : await checkedUrl(input.webhook_url, 'webhook_url');
  if (!url) throw new GatewayError('webhook_not_found', 'No webhook settings yet: send webhook_url (or POST /user/webhooks/) first.');
  const enabledEvents = input.enabled_events === undefined ? (existing?.enabledEvents ?? null) : enabledEventsOf(input.enabled_events);
  let secret: { secret: string; secretCipher: string; secretHint: string } | undefined;
  if (input.webhook_secret !== undefined) {
    if (input.webhook_secret !== 'rotate' && !isWebhookSecret(input.webhook_secret)) {
      throw ValidationError.field('webhook_secret', 'Send "rotate" for a new secret, or a secret of the form whsec_ + base64 of 32 bytes.');
    }
    secret = await newSecretCipher(actor.tenantId, deps, input.webhook_secret === 'rotate' ? undefined : input.webhook_secret);
  } else if (!existing) secret = await newSecretCipher(actor.tenantId, deps);
  const base = existing ?? { tenantId: actor.tenantId, createdAt: now.toISOString() };
  const next: WebhookSettings = {
    ...base,
    url,
    enabledEvents,
    secretCipher: secret?.secretCipher ?? existing?.secretCipher ?? '',
    secretHint: secret?.secretHint ?? existing?.secretHint ?? '',
    updatedAt: now.toISOString(),
  };
  const fields = Object.entries(input).filter(([, v]) => v !== undefined).map(([k]) => k);
  try {
    await write([putWebhookSettingsItem(next, existing?.updatedAt ?? null), settingsChanged(actor, now, { action: existing ? 'updated' : 'created', fields })]);
  } catch (error) {
    if (error instanceof TransactionConditionError) throw new GatewayError('invalid_state', 'The webhook settings changed meanwhile; try again.');
    throw error;
  }
  return viewOf(next, secret?.secret);
}

export const TestWebhookInput = z.object({ event_type: z.string() });

const SAMPLE_DATA: Readonly<Record<string, Record<string, unknown>>> = {
  payment_status_update: {
    transaction_id: '00000000-0000-4000-8000-000000000000',
    status: 'completed',
    previous_status: 'confirmed',
    payment_type: 'full',
    order_id: 'test-order',
    price_amount: '10.00',
    price_currency: 'USD',
    pay_amount: '10.000000',
    pay_currency: 'USDTERC20',
    blockchain_address: '0x0000000000000000000000000000000000000000',
    transaction_hash: null,
    confirmations: 12,
    merchant_received_usd: '9.90',
    payment_history: [],
    metadata: { updated_at: '1970-01-01T00:00:00Z' },
  },
};

/** POST /user/webhooks/test/: one signed delivery of a sample event to the variant-A URL, through the same path. */
export async function sendTestWebhook(actor: Actor, input: z.infer<typeof TestWebhookInput>, deps: DeliveryDeps) {
  if (!isKnownEvent(input.event_type)) {
    throw new GatewayError('invalid_event_types', `Unknown event type: ${input.event_type}.`, { event_type: [`Unknown event type: ${input.event_type}`] });
  }
  const settings = await getWebhookSettings(actor.tenantId);
  if (!settings) throw new GatewayError('webhook_not_found', 'No webhook URL is configured: POST /user/webhooks/ first.');
  const now = deps.clock.now();
  const eventId = randomUUID();
  const data = { test: true, ...(SAMPLE_DATA[input.event_type] ?? {}) };
  const body = JSON.stringify({ event: input.event_type, data, timestamp: now.toISOString() });
  const deliveryId = variantADeliveryId(eventId);
  await createDelivery(
    {
      tenantId: actor.tenantId,
      deliveryId,
      eventId,
      eventType: input.event_type,
      webhookId: eventId,
      destination: { kind: 'default', url: settings.url },
      body,
      status: 'pending',
      attempts: 0,
      createdAt: now.toISOString(),
      nextDueAt: now.toISOString(),
      leaseToken: null,
      leaseUntil: null,
    },
    now,
  );
  const report = await processDelivery({ kind: 'webhook_delivery', v: 1, tenant_id: actor.tenantId, delivery_id: deliveryId, attempt: 1, due_at: now.toISOString(), hop: 0 }, deps);
  return {
    delivered: report.answer ? report.answer.statusCode !== null && report.answer.statusCode >= 200 && report.answer.statusCode < 300 : false,
    delivery_id: deliveryId,
    webhook_id: eventId,
    url: settings.url,
    status_code: report.answer?.statusCode ?? null,
    latency_ms: report.answer?.latencyMs ?? null,
    error: report.answer?.error ?? null,
  };
}

/* ------------------------------------------------------------------ variant B ------------------------------ */

export const CreateSubscriptionInput = z.object({
  url: z.unknown().optional(),
  event_types: z.unknown().optional(),
  description: z.string().max(500).optional(),
});
export const DeleteSubscriptionInput = z.object({ webhook_id: z.unknown().optional() });

export interface SubscriptionView {
  readonly id: string;
  readonly url: string;
  readonly event_types: readonly string[];
  readonly status: string;
  readonly created_at: string;
  readonly last_triggered_at: string | null;
  readonly failure_count: number;
  readonly secret: string;
  readonly description: string | null;
}

const subscriptionView = (s: Subscription, wholeSecret?: string): SubscriptionView => ({
  id: s.id,
  url: s.url,
  event_types: s.eventTypes,
  status: s.status,
  created_at: s.createdAt,
  last_triggered_at: s.lastTriggeredAt,
  failure_count: s.failureCount,
  secret: wholeSecret ?? maskedSecret(s.secretHint),
  description: s.description,
});

export async function listSubscriptionViews(tenantId: string): Promise<{ webhooks: SubscriptionView[]; count: number }> {
  const subs = await listSubscriptions(tenantId);
  return { webhooks: subs.map((s) => subscriptionView(s)), count: subs.length };
}

const urlHash = (url: string) => createHash('sha256').update(url).digest('hex');

function eventTypesOf(raw: unknown): string[] {
  // Default: every type (section 4.6), expressed through the families' `.all`.
  if (raw === undefined || raw === null) return SUBSCRIPTION_EVENTS.filter((t) => t.endsWith('.all'));
  if (!Array.isArray(raw) || raw.length === 0 || raw.some((t) => typeof t !== 'string')) {
    throw new GatewayError('invalid_event_types', 'event_types must be a non-empty array of event types.', { event_types: ['Expected a non-empty array of strings.'] });
  }
  const unknown = unknownSubscriptionTypes(raw as string[]);
  if (unknown.length > 0) {
    throw new GatewayError('invalid_event_types', `Unknown event types: ${unknown.join(', ')}.`, { event_types: unknown.map((t) => `Unknown event type: ${t}`) });
  }
  return [...new Set(raw as string[])];
}

export async function createSubscription(
  actor: Actor,
  input: z.infer<typeof CreateSubscriptionInput>,
  now: Date,
  deps: Pick<DeliveryDeps, 'secrets'>,
): Promise<SubscriptionView> {
  const url = await checkedUrl(input.url, 'url');
  const eventTypes = eventTypesOf(input.event_types);
  const { secret, secretCipher, secretHint: hint } = await newSecretCipher(actor.tenantId, deps);
  const sub: Subscription = {
    tenantId: actor.tenantId,
    id: randomUUID(),
    url,
    urlHash: urlHash(url),
    eventTypes,
    status: 'active',
    createdAt: now.toISOString(),
    lastTriggeredAt: null,
    failureCount: 0,
    secretCipher,
    secretHint: hint,
    description: input.description ?? null,
  };
  try {
    await write([...createSubscriptionItems(sub, MAX_SUBSCRIPTIONS), settingsChanged(actor, now, { action: 'webhook_created', webhook_id: sub.id })]);
  } catch (error) {
    if (error instanceof TransactionConditionError) {
      if (error.failedIndexes.includes(CREATE_SUBSCRIPTION_ITEMS.urlGuard)) {
        throw new GatewayError('url_already_existsm', 'A webhook with this URL already exists.', { url: ['A webhook with this URL already exists.'] });
      }
      if (error.failedIndexes.includes(CREATE_SUBSCRIPTION_ITEMS.count)) {
        throw new GatewayError('invalid_request', `At most ${MAX_SUBSCRIPTIONS} webhooks per account.`, { limit: MAX_SUBSCRIPTIONS });
      }
    }
    throw error;
  }
  return { ...subscriptionView(sub, secret) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function deleteSubscription(actor: Actor, input: z.infer<typeof DeleteSubscriptionInput>, now: Date): Promise<{ deleted: boolean; webhook_id: string }> {
  const id = input.webhook_id;
  if (typeof id !== 'string' || !UUID.test(id)) throw new GatewayError('invalid_webhook_id', 'webhook_id must be a webhook id.', { webhook_id: ['Not a valid webhook id.'] });
  const sub = await getSubscription(actor.tenantId, id.toLowerCase());
  if (!sub) throw new GatewayError('webhook_not_found', 'The webhook was not found.', { webhook_id: id });
  try {
    await write([...deleteSubscriptionItems(sub), settingsChanged(actor, now, { action: 'webhook_deleted', webhook_id: sub.id })]);
  } catch (error) {
    if (error instanceof TransactionConditionError) throw new GatewayError('webhook_not_found', 'The webhook was not found.', { webhook_id: id });
    throw error;
  }
  return { deleted: true, webhook_id: sub.id };
}

/* ------------------------------------------------------------------ attempts and redelivery ---------------- */

export const ListAttemptsInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(500).optional(),
});

export async function listAttempts(tenantId: string, input: z.infer<typeof ListAttemptsInput>, now: Date) {
  const since = new Date(now.getTime() - DELIVERY_LOG_DAYS * 86400_000);
  const { items, next } = await listAttemptLogs(tenantId, since, input.limit, input.cursor ?? null);
  return {
    results: items.map((a) => ({
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
    })),
    next_cursor: next,
  };
}

/** Sends a delivery again as a new delivery (`<id>.r<ms>`) with the SAME body and webhook-id, full retry schedule. */
export async function redeliver(tenantId: string, deliveryId: string, deps: DeliveryDeps): Promise<{ delivery_id: string; webhook_id: string; redelivery_of: string }> {
  const original = await getDelivery(tenantId, deliveryId);
  if (!original) throw new NotFoundError('The delivery was not found.', { delivery_id: deliveryId });
  const now = deps.clock.now();
  const id = `${original.deliveryId.replace(/\.r\d+$/, '')}.r${now.getTime()}`;
  await createDelivery({ ...original, deliveryId: id, status: 'pending', attempts: 0, createdAt: now.toISOString(), nextDueAt: now.toISOString(), leaseToken: null, leaseUntil: null }, now);
  await deps.queue.send([{ body: deliveryMessageBody({ tenant_id: tenantId, delivery_id: id, attempt: 1, due_at: now.toISOString() }), delaySeconds: 0 }]);
  return { delivery_id: id, webhook_id: original.webhookId, redelivery_of: original.deliveryId };
}
