import { z } from 'zod';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import { DELIVERY_EVENTS, SUBSCRIPTION_EVENTS } from '../../shared/domain/webhooks.js';
import { accepted, ok, principalOf, route } from '../../shared/http/route.js';
import type { ErrorOverrides, Principal } from '../../shared/http/route.js';
import {
  CreateSettingsInput,
  CreateSubscriptionInput,
  createSubscription,
  DeleteSubscriptionInput,
  deleteSubscription,
  getSettingsView,
  ListAttemptsInput,
  listAttempts,
  listSubscriptionViews,
  PatchSettingsInput,
  patchSettings,
  redeliver,
  sendTestWebhook,
  setCallbackUrl,
  TestWebhookInput,
} from '../../shared/usecases/webhooks/manage.js';
import type { Actor } from '../../shared/usecases/webhooks/manage.js';
import { deliveryDeps } from '../../shared/webhooks/runtime.js';

/**
 * Webhook management (spec 4.6, DESIGN 10): variant A at `/user/webhooks/` (trailing slash), variant B at
 * `/user/webhooks`; both accept a bearer token or `X-API-Key` (section 5.4). Beyond the spec: the attempt log of
 * the last 30 days and redelivery.
 */

const tags = ['Webhooks'];
/** Variant B names the scope failure `insufficient_permissions` (section 4.6). */
const variantB: ErrorOverrides = { permission_denied: { code: 'insufficient_permissions' } };

const actorOf = (req: { readonly principal: Principal | null }): Actor => {
  const p = principalOf(req);
  return { tenantId: p.tenant.id, credential: p.credential.kind === 'token' ? `token:${p.credential.clientId}` : `api_key:${p.credential.keyId}` };
};

const SettingsBody = z.object({ webhook_url: z.string().nullable(), webhook_secret: z.string().nullable(), enabled_events: z.array(z.enum(DELIVERY_EVENTS)) });
const SubscriptionBody = z.object({
  id: z.string(),
  url: z.string(),
  event_types: z.array(z.enum(SUBSCRIPTION_EVENTS)),
  status: z.enum(['active', 'inactive']),
  created_at: z.string(),
  last_triggered_at: z.string().nullable(),
  failure_count: z.number().int(),
  secret: z.string().describe('Whole in the create answer only; masked afterwards'),
  description: z.string().nullable(),
});
const AttemptBody = z.object({
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
});

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
      responses: { 200: { description: 'Settings', schema: z.object({ callback_url: z.string(), secret: z.string(), message: z.string() }) } },
    },
    handle: async (req) => ok(await setCallbackUrl(actorOf(req), req.body, req.now, deliveryDeps())),
  }),
  route({
    method: 'GET',
    path: '/user/webhooks/',
    auth: 'bearer-or-api-key',
    scopes: READ,
    doc: { summary: 'Webhook settings (variant A)', tags, responses: { 200: { description: 'Settings (secret masked)', schema: SettingsBody } } },
    handle: async (req) => ok(await getSettingsView(principalOf(req).tenant.id)),
  }),
  route({
    method: 'PATCH',
    path: '/user/webhooks/',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    body: PatchSettingsInput,
    doc: {
      summary: 'Change webhook settings (variant A)',
      description: 'webhook_url, webhook_secret (`rotate`, or a `whsec_` secret; a new secret is returned whole once), enabled_events (section 6.1 types).',
      tags,
      responses: { 200: { description: 'Settings', schema: SettingsBody } },
    },
    handle: async (req) => ok(await patchSettings(actorOf(req), req.body, req.now, deliveryDeps())),
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
      responses: {
        200: {
          description: 'Outcome of the first attempt',
          schema: z.object({
            delivered: z.boolean(),
            delivery_id: z.string(),
            webhook_id: z.string(),
            url: z.string(),
            status_code: z.number().int().nullable(),
            latency_ms: z.number().nullable(),
            error: z.string().nullable(),
          }),
        },
      },
    },
    handle: async (req) => ok(await sendTestWebhook(actorOf(req), req.body, deliveryDeps())),
  }),
  route({
    method: 'GET',
    path: '/user/webhooks',
    auth: 'bearer-or-api-key',
    scopes: READ,
    errorOverrides: variantB,
    doc: { summary: 'List webhook subscriptions (variant B)', tags, responses: { 200: { description: 'Subscriptions', schema: z.object({ webhooks: z.array(SubscriptionBody), count: z.number().int() }) } } },
    handle: async (req) => ok(await listSubscriptionViews(principalOf(req).tenant.id)),
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
      responses: { 200: { description: 'Subscription', schema: SubscriptionBody } },
    },
    handle: async (req) => ok(await createSubscription(actorOf(req), req.body, req.now, deliveryDeps())),
  }),
  route({
    method: 'DELETE',
    path: '/user/webhooks',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    body: DeleteSubscriptionInput,
    errorOverrides: variantB,
    doc: { summary: 'Delete a webhook subscription (variant B)', tags, responses: { 200: { description: 'Deleted', schema: z.object({ deleted: z.boolean(), webhook_id: z.string() }) } } },
    handle: async (req) => ok(await deleteSubscription(actorOf(req), req.body, req.now)),
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
      responses: { 200: { description: 'Attempts', schema: z.object({ results: z.array(AttemptBody), next_cursor: z.string().nullable() }) } },
    },
    handle: async (req) => ok(await listAttempts(principalOf(req).tenant.id, req.query, req.now)),
  }),
  route({
    method: 'POST',
    path: '/user/webhooks/deliveries/{delivery_id}/redeliver/',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    doc: {
      summary: 'Redeliver a delivery (same body and webhook-id)',
      tags,
      responses: { 202: { description: 'Queued', schema: z.object({ delivery_id: z.string(), webhook_id: z.string(), redelivery_of: z.string() }) } },
    },
    handle: async (req) => accepted(await redeliver(principalOf(req).tenant.id, req.params.delivery_id ?? '', deliveryDeps())),
  }),
];
