import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { ZodType } from 'zod';
import type { TenantEventType } from '../domain/events.js';
import {
  EVENT_CATALOGUE,
  EVENTS,
  PAYMENT_CHANGE_EVENTS,
  PAYMENT_CREATION_EVENTS,
  PAYMENT_STATUS_EVENTS,
  TENANT_EVENT_TYPES,
  WITHDRAWAL_CHANGE_EVENTS,
  WITHDRAWAL_CREATION_EVENTS,
  withdrawalFamilyEvent,
} from '../domain/events.js';
import { DELIVERY_EVENTS } from '../domain/webhooks.js';
import { WITHDRAWAL_STATUSES } from '../domain/withdrawals.js';
import type { AnyRoute } from './route.js';
import { requestSchema } from './route.js';

/**
 * The OpenAPI 3.1 document, generated from the same route definitions and zod schemas that validate
 * requests, so the published interface cannot drift from the code. Shapes the spec leaves open are
 * decided in the route's schemas and published here.
 */

const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).describe('Per code; for validation errors, field -> list of messages'),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });

/** The routing rule the paths below follow; the paths are listed once, as written. */
const TRAILING_SLASH_RULE = [
  'Multi-tenant cryptocurrency payment gateway (interface v1.0).',
  'Paths are listed as written (main-group paths end with `/`). Every path is also served with the trailing slash removed or added (`GET /payments` is `GET /payments/`), except where both spellings are listed: there the slash picks the variant (`/user/webhooks/` is webhook settings, `/user/webhooks` webhook subscriptions).',
].join('\n\n');

const STANDARD_ERRORS: Record<number, string> = {
  400: 'invalid_request (details map each field to its messages)',
  401: 'authentication_failed',
  403: 'permission_denied (details.required_scopes, details.token_scopes), account_suspended, ip_not_allowed',
  429: 'rate_limit_exceeded (Retry-After, X-RateLimit-*)',
};

/** The request header of the routes that honour `Idempotency-Key` (route.idempotent; shared/http/idempotency.ts). */
const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().meta({
    description:
      'Printable ASCII. The same key and body replay the first answer for 24 h (`Idempotent-Replayed: true`); another request with the key is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_conflict`.',
  }),
});

/** What an idempotent route may answer besides its own: its 409 and 422 gain the key's refusals. */
const IDEMPOTENCY_ERRORS: Record<number, string> = { 409: 'idempotency_conflict', 422: 'idempotency_key_reused' };

const openApiPath = (path: string) => path.replace(/\{(\w+)\+\}/g, '{$1}');

export interface DocumentInfo {
  readonly title: string;
  readonly version: string;
  readonly serverUrl?: string;
}

/** Which transitions send which webhook events, from the event catalogue: `[transition, events]`. */
export function eventTransitions(): readonly (readonly [string, readonly TenantEventType[]])[] {
  const family = (e: TenantEventType | null): TenantEventType[] => (e ? [e] : []);
  return [
    ['payment created (-> waiting)', [...PAYMENT_CREATION_EVENTS]],
    ...Object.entries(PAYMENT_STATUS_EVENTS).map(([status, e]) => [`payment -> ${status}`, [...PAYMENT_CHANGE_EVENTS, ...family(e)]] as const),
    ['withdrawal created (-> pending)', [...WITHDRAWAL_CREATION_EVENTS]],
    ...WITHDRAWAL_STATUSES.filter((s) => s !== 'pending').map(
      (status) => [`withdrawal -> ${status}`, [...WITHDRAWAL_CHANGE_EVENTS, ...family(withdrawalFamilyEvent(status))]] as const,
    ),
    ['withdrawal approved in review (stays pending)', [EVENTS.withdrawalApproved]],
    ['custody withdrawal created (-> pending), approved in review, or any status change', [EVENTS.custodyWithdrawalUpdate]],
  ];
}

/** What the webhooks section says of an event besides its transitions. */
const EVENT_NOTES: Partial<Record<TenantEventType, string>> = {
  'payment.failed':
    'Also announces a cancelled payment (its data says `status: "cancelled"`): the variant-B catalogue has no `payment.cancelled`, and a cancelled payment, like a failed one, will never complete.',
  'payment.created': 'Its data has `previous_status: null`.',
  'payment.processing':
    'Also announces an underpaid payment (its data says `status: "partially_paid"`): it stays open for a top-up, and the variant-B catalogue has no `payment.partially_paid`.',
  withdrawal_status_update: 'Its data has `metadata.processed_at`, the time of the change.',
  'withdrawal.status_changed': 'Sent on every withdrawal status change, beside `withdrawal_status_update`.',
  deposit_received: 'Sent when a deposit for a payment is seen on chain.',
  deposit_merged: 'Sent when a credited deposit is swept from its forwarder.',
  'withdrawal.approved':
    "Sent when the operator approves a withdrawal of the main account or a wallet that a review held (it stays `pending` and is then dispatched); a rejected one moves to `rejected`, its hold returned. Custody withdrawals held by the tenant's review policy are announced as `custody_withdrawal_update`.",
  custody_withdrawal_update:
    "Sent for a custody account's withdrawal (never a `withdrawal_status_update` or `withdrawal.*` event: those are the main account's and the wallets' withdrawals) to its callback_url, else the tenant's default URL: on creation (`status: \"pending\"`), when the operator approves it in review (still `pending`, `review.status: \"approved\"`), and on every status change. `data`: `withdrawal_id`, `account_id` (the custody account), `blockchain`, `token`, `currency`, `amount` (what leaves the account, fees included), `fee`, `net_amount` (what the destination receives), `destination_address`, `status`, `previous_status`, `review`, `transaction_hash`, `custom_id`, `metadata.processed_at`; amounts as 8-place strings, the same amounts as the custody record's numbers.",
  'wallet.created': 'Sent when a wallet is created.',
  custody_deposit_update:
    'Sent to the tenant\'s default URL when a USDT deposit to a custody account\'s address is seen (`status: "confirming"`), credited after its confirmations (`credited`), or dropped by a reorganisation (`dropped`). `data`: `deposit_id`, `account_id`, `blockchain`, `token`, `amount`, `address`, `transaction_hash`, `confirmations`, `status`, `previous_status`, `credited_at`.',
  'wallet.balance_changed':
    'Sent for every change of a wallet balance, one per ledger entry and currency: a payment credited to the wallet, a withdrawal held, paid or returned, a transfer held, completed or returned, an adjustment. `data` carries the new `amount`, `pending_amount`, `available_balance` and `locked_amount`, the `change` of each, the `cause` (the entry type: payment, withdrawal_hold, withdrawal, withdrawal_release, transfer, adjustment...), the `reference` ({kind, id}: the payment, withdrawal or transfer) and the `entry_id`.',
  'security.login_attempt': 'Sent when a token is requested for a known client with a wrong secret.',
  'security.settings_changed': 'Sent when a security setting of the tenant changes.',
};

function registerWebhooks(registry: OpenAPIRegistry): void {
  const transitions = eventTransitions();
  for (const type of TENANT_EVENT_TYPES) {
    const sentOn = transitions.filter(([, events]) => events.includes(type)).map(([t]) => t);
    const variant = (DELIVERY_EVENTS as readonly string[]).includes(type)
      ? 'Variant A (section 6.1): `{event, data, timestamp}` to the callback URL of the object, else the tenant URL of `/user/webhooks/`.'
      : 'Variant B (section 6.2): `{id, event, created_at, data}` to each active subscription of `/user/webhooks` that names it or its `.all`.';
    registry.registerWebhook({
      method: 'post',
      path: type,
      summary: type,
      description: [variant, sentOn.length ? `Sent on: ${sentOn.join('; ')}.` : '', EVENT_NOTES[type] ?? ''].filter(Boolean).join('\n\n'),
      request: { body: { description: `The event's \`data\``, content: { 'application/json': { schema: EVENT_CATALOGUE[type].payload } } } },
      responses: { 200: { description: 'Any 2xx acknowledges the delivery; anything else is retried (section 6.3).' } },
      'x-sent-on': sentOn,
    } as Parameters<OpenAPIRegistry['registerWebhook']>[0]);
  }
}

export function buildOpenApi(routes: readonly AnyRoute[], info: DocumentInfo): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'Access token from POST /o/token/' });
  registry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    flows: { clientCredentials: { tokenUrl: '/o/token/', scopes: { read: 'Read', write: 'Change', admin: 'Platform fees' } } },
  });

  for (const route of routes) {
    if (!route.doc) continue;
    const names = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1] ?? '');
    const params = names.length > 0 ? z.object(Object.fromEntries(names.map((n) => [n, z.string()]))) : undefined;
    const bodyTypes = route.bodyTypes ?? ['json'];
    const bodySchema = requestSchema(route.body);
    const query = requestSchema(route.query);
    const body = bodySchema
      ? {
          content: Object.fromEntries(
            bodyTypes.map((t) => [t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded', { schema: bodySchema as ZodType }]),
          ),
        }
      : undefined;
    const responses: Record<string, { description: string; content?: Record<string, { schema: ZodType }> }> = {};
    for (const [status, response] of Object.entries(route.doc.responses)) {
      // Every error answer is the envelope (spec 7.1) unless the route names its own body (OAuth's RFC 6749 errors).
      const schema = response.schema?.() ?? (Number(status) >= 400 ? ErrorEnvelope : undefined);
      responses[status] = { description: response.description, ...(schema ? { content: { 'application/json': { schema } } } : {}) };
    }
    if (route.auth !== 'public') {
      for (const [status, description] of Object.entries(STANDARD_ERRORS)) {
        responses[status] ??= { description, content: { 'application/json': { schema: ErrorEnvelope } } };
      }
    }
    if (route.idempotent) {
      for (const [status, code] of Object.entries(IDEMPOTENCY_ERRORS)) {
        const own = responses[status];
        responses[status] = own
          ? { ...own, description: `${own.description}; ${code} (Idempotency-Key)` }
          : { description: `${code} (Idempotency-Key)`, content: { 'application/json': { schema: ErrorEnvelope } } };
      }
    }
    const security: Record<string, string[]>[] =
      route.auth === 'public' ? [] : [{ bearer: [...(route.scopes ?? [])] }, ...(route.auth === 'bearer-or-api-key' ? [{ apiKey: [] }] : [])];
    registry.registerPath({
      method: route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete',
      path: openApiPath(route.path),
      summary: route.doc.summary,
      description: [route.doc.description, route.scopes?.length ? `Scopes: ${route.scopes.join(' ')}.` : ''].filter(Boolean).join('\n\n') || undefined,
      tags: [...route.doc.tags],
      security,
      request: {
        ...(params ? { params } : {}),
        ...(query ? { query: query as unknown as z.ZodObject } : {}),
        ...(route.idempotent ? { headers: IdempotencyHeaders } : {}),
        ...(body ? { body } : {}),
      },
      responses,
    });
  }
  registerWebhooks(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: TRAILING_SLASH_RULE },
    servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
  });
}
