import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { GatewayError } from '../../domain/errors.js';
import { isSubscriptionEvent, MAX_SUBSCRIPTIONS, SUBSCRIPTION_EVENTS } from '../../domain/webhooks.js';
import type { Subscription } from '../../domain/webhooks.js';
import { checkedUrl, eventTypeList, sealedSecret, settingsChanged, urlHash } from './common.js';
import type { Actor, WebhookPorts } from './ports.js';
import { subscriptionView } from './views.js';
import type { SubscriptionView } from './views.js';

export const CreateSubscriptionInput = lazySchema(() =>
  z.object({
    url: z.unknown().optional(),
    event_types: z.unknown().optional(),
    description: z.string().max(500).optional(),
  }),
);
export type CreateSubscriptionInput = z.infer<ReturnType<typeof CreateSubscriptionInput>>;

function eventTypesOf(raw: unknown): string[] {
  // Default: every type (section 4.6), expressed through the families' `.all`.
  if (raw === undefined || raw === null) return SUBSCRIPTION_EVENTS.filter((t) => t.endsWith('.all'));
  return eventTypeList(raw, 'event_types', { nonEmpty: true, isKnown: isSubscriptionEvent });
}

/** POST /user/webhooks: a variant-B subscription (at most MAX_SUBSCRIPTIONS, one per URL); the secret shown once. */
export async function createSubscription(
  actor: Actor,
  input: CreateSubscriptionInput,
  now: Date,
  deps: Pick<WebhookPorts, 'webhookSubscriptions' | 'webhookSecrets' | 'callbacks'>,
): Promise<SubscriptionView> {
  const url = await checkedUrl(input.url, 'url', deps.callbacks);
  const eventTypes = eventTypesOf(input.event_types);
  const { secret, secretCipher, secretHint } = await sealedSecret(actor.tenantId, deps.webhookSecrets);
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
    secretHint,
    description: input.description ?? null,
  };
  const result = await deps.webhookSubscriptions.create(sub, MAX_SUBSCRIPTIONS, settingsChanged(actor, now, { action: 'webhook_created', webhook_id: sub.id }));
  if (result === 'duplicate_url') {
    throw new GatewayError('url_already_existsm', 'A webhook with this URL already exists.', { url: ['A webhook with this URL already exists.'] });
  }
  if (result === 'limit_reached') throw new GatewayError('invalid_request', `At most ${MAX_SUBSCRIPTIONS} webhooks per account.`, { limit: MAX_SUBSCRIPTIONS });
  return subscriptionView(sub, secret);
}
