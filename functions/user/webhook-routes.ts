import * as z from 'zod';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import { accepted, ok, principalOf, routesOf } from '../../shared/http/route.js';
import type { ErrorOverrides, Principal } from '../../shared/http/route.js';
import { CreateSettingsInput, createSettings } from '../../shared/usecases/webhooks/create-settings.js';
import { CreateSubscriptionInput, createSubscription } from '../../shared/usecases/webhooks/create-subscription.js';
import { DeleteSubscriptionInput, deleteSubscription } from '../../shared/usecases/webhooks/delete-subscription.js';
import { getSettings } from '../../shared/usecases/webhooks/get-settings.js';
import { ListAttemptsInput, listDeliveries } from '../../shared/usecases/webhooks/list-deliveries.js';
import { listSubscriptions } from '../../shared/usecases/webhooks/list-subscriptions.js';
import type { Actor, WebhookPorts } from '../../shared/usecases/webhooks/ports.js';
import { redeliver } from '../../shared/usecases/webhooks/redeliver.js';
import { sendTestWebhook, TestWebhookInput } from '../../shared/usecases/webhooks/send-test.js';
import { PatchSettingsInput, updateSettings } from '../../shared/usecases/webhooks/update-settings.js';
import {
  AttemptListView,
  CallbackUrlView,
  DeletedSubscriptionView,
  RedeliveryView,
  SettingsView,
  SubscriptionListView,
  SubscriptionView,
  TestWebhookView,
} from '../../shared/usecases/webhooks/views.js';

/**
 * Webhook management (spec 4.6, DESIGN 10): variant A at `/user/webhooks/` (trailing slash), variant B at
 * `/user/webhooks`; both accept a bearer token or `X-API-Key` (section 5.4). Beyond the spec: the attempt log of
 * the last 30 days and redelivery. Every route receives the webhook ports (shared/runtime/webhooks.ts).
 */

export type WebhookDeps = WebhookPorts;
const route = routesOf<WebhookDeps>();

const tags = ['Webhooks'];
/** Variant B names the scope failure `insufficient_permissions` (section 4.6). */
const variantB: ErrorOverrides = { permission_denied: { code: 'insufficient_permissions' } };

const actorOf = (req: { readonly principal: Principal | null }): Actor => {
  const p = principalOf(req);
  return { tenantId: p.tenant.id, credential: p.credential.kind === 'token' ? `token:${p.credential.clientId}` : `api_key:${p.credential.keyId}` };
};

/** A delivery id: `<event id>.a` or `<event id>.s.<subscription id>`, with `.r<ms>` for a redelivery. */
const DeliveryParams = lazySchema(() => z.object({ delivery_id: z.string().regex(/^[\w.:-]{1,200}$/) }));

export const webhookRoutes = [
  route({
    method: 'POST',
    path: '/user/webhooks/',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    body: CreateSettingsInput,
    doc: {
      summary: 'Set the default webhook URL (variant A)',
      description: 'Creates the settings and returns the signing secret whole, once; later calls change the URL and show the secret masked.',
      tags,
      responses: { 200: { description: 'Settings', schema: CallbackUrlView } },
    },
    handle: async (req, deps) => ok(await createSettings(actorOf(req), req.body, req.now, deps)),
  }),
  route({
    method: 'GET',
    path: '/user/webhooks/',
    auth: 'bearer-or-api-key',
    scopes: READ,
    doc: { summary: 'Webhook settings (variant A)', tags, responses: { 200: { description: 'Settings (secret masked)', schema: SettingsView } } },
    handle: async (req, deps) => ok(await getSettings(principalOf(req).tenant.id, deps)),
  }),
  route({
    method: 'PATCH',
    path: '/user/webhooks/',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    body: PatchSettingsInput,
    doc: {
      summary: 'Change webhook settings (variant A)',
      description:
        'webhook_url, webhook_secret, enabled_events (section 6.1 types). webhook_secret: `rotate` for a new random secret, returned whole once; or a secret of your own, stored encrypted and shown masked, of minimum strength: at least 32 characters of printable ASCII without spaces, or `whsec_` + base64 of at least 24 bytes (otherwise 400 invalid_request).',
      tags,
      responses: { 200: { description: 'Settings', schema: SettingsView } },
    },
    handle: async (req, deps) => ok(await updateSettings(actorOf(req), req.body, req.now, deps)),
  }),
  route({
    method: 'POST',
    path: '/user/webhooks/test/',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    body: TestWebhookInput,
    doc: {
      summary: 'Send a test webhook to the default URL',
      description: 'One signed delivery of a sample event (data.test = true), logged like any other; failures are retried on the usual schedule.',
      tags,
      responses: { 200: { description: 'Outcome of the first attempt', schema: TestWebhookView } },
    },
    handle: async (req, deps) => ok(await sendTestWebhook(actorOf(req), req.body, deps)),
  }),
  route({
    method: 'GET',
    path: '/user/webhooks',
    auth: 'bearer-or-api-key',
    scopes: READ,
    errorOverrides: variantB,
    doc: { summary: 'List webhook subscriptions (variant B)', tags, responses: { 200: { description: 'Subscriptions', schema: SubscriptionListView } } },
    handle: async (req, deps) => ok(await listSubscriptions(principalOf(req).tenant.id, deps)),
  }),
  route({
    method: 'POST',
    path: '/user/webhooks',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    body: CreateSubscriptionInput,
    errorOverrides: variantB,
    doc: {
      summary: 'Create a webhook subscription (variant B)',
      description: 'HTTPS only, at most 10 per account; event_types default to every type. The secret is shown whole once.',
      tags,
      responses: { 200: { description: 'Subscription', schema: SubscriptionView } },
    },
    handle: async (req, deps) => ok(await createSubscription(actorOf(req), req.body, req.now, deps)),
  }),
  route({
    method: 'DELETE',
    path: '/user/webhooks',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    body: DeleteSubscriptionInput,
    errorOverrides: variantB,
    doc: { summary: 'Delete a webhook subscription (variant B)', tags, responses: { 200: { description: 'Deleted', schema: DeletedSubscriptionView } } },
    handle: async (req, deps) => ok(await deleteSubscription(actorOf(req), req.body, req.now, deps)),
  }),
  route({
    method: 'GET',
    path: '/user/webhooks/deliveries/',
    auth: 'bearer-or-api-key',
    scopes: READ,
    query: ListAttemptsInput,
    doc: {
      summary: 'Delivery attempts of the last 30 days, newest first',
      tags,
      responses: { 200: { description: 'Attempts', schema: AttemptListView } },
    },
    handle: async (req, deps) => ok(await listDeliveries(principalOf(req).tenant.id, req.query, req.now, deps)),
  }),
  route({
    method: 'POST',
    path: '/user/webhooks/deliveries/{delivery_id}/redeliver/',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    params: DeliveryParams,
    doc: {
      summary: 'Redeliver a delivery (same body and webhook-id)',
      tags,
      responses: { 202: { description: 'Queued', schema: RedeliveryView } },
    },
    handle: async (req, deps) => accepted(await redeliver(principalOf(req).tenant.id, req.params.delivery_id, deps)),
  }),
];
