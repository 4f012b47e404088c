import * as z from 'zod';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import { ok, principalOf, routesOf } from '../../shared/http/route.js';
import { getProfile, updateProfile } from '../../shared/usecases/user/get-profile.js';
import { AutoRefundExcessPatch } from '../../shared/usecases/tenants/manage-tenants.js';
import type { UserPorts } from '../../shared/usecases/user/ports.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import type { LazyOutput } from '../../shared/domain/lazy-schema.js';

const route = routesOf<UserPorts>();

const nullableDecimal = lazySchema(() => z.string().nullable());

const AutoRefundExcessRecord = lazySchema(() =>
  z
    .object({ enabled: z.boolean(), threshold_usd: z.string() })
    .describe(
      "Beyond spec 2.8 (DESIGN section 12): when enabled, an overpaid payment's excess worth at least threshold_usd (at the payment's own price) is refunded through a claim link opened as the payment completes; its claim_url is in refund.created",
    ),
);

export const TenantRecord = lazySchema(() =>
  z.object({
    id: z.string().uuid(),
    name: z.string(),
    schema_name: z.string(),
    account_type: z.enum(['individual', 'business']),
    status: z.enum(['active', 'suspended', 'pending', 'trial']),
    created_on: z.string().describe('Calendar date (YYYY-MM-DD)'),
    contact_email: z.string().nullable(),
    transaction_fee: z.string().describe('Percentage, e.g. "1" for 1 %'),
    is_fee_paid_by_user: z.boolean(),
    webhook_callback_url: z.string().nullable(),
    webhook_secret: z.string().nullable().describe('Only the first 12 characters are visible'),
    is_ip_whitelist_enabled: z.boolean(),
    ip_whitelist: z.array(z.string()),
    api_usage: z.object({ requests_today: z.number().int(), requests_this_month: z.number().int(), last_request: z.string().nullable() }),
    limits: z.object({
      daily_payment_limit: nullableDecimal(),
      daily_withdrawal_limit: nullableDecimal(),
      max_payment_amount: nullableDecimal(),
      max_withdrawal_amount: nullableDecimal(),
    }),
    statistics: z.object({
      total_payments: z.number().int(),
      total_withdrawals: z.number().int(),
      total_volume_usd: z.string(),
      active_currencies: z.number().int(),
    }),
    auto_refund_excess: AutoRefundExcessRecord(),
    features: z.object({ multi_wallet: z.boolean(), instant_withdrawals: z.boolean(), custom_fees: z.boolean(), webhook_retry: z.boolean() }),
  }),
);

const UpdateProfileBody = lazySchema(() => z.object({ auto_refund_excess: AutoRefundExcessPatch().optional() }).strict().meta({ id: 'UpdateProfile' }));

export const userRoutes = [
  route({
    method: 'GET',
    path: '/user/me/',
    auth: 'bearer',
    scopes: READ,
    doc: { summary: 'The tenant record (full form)', tags: ['User'], responses: { 200: { description: 'Tenant', schema: TenantRecord } } },
    handle: async (req, deps) => {
      const profile = await getProfile({ tenant: principalOf(req).tenant, now: req.now }, deps);
      const answer: LazyOutput<typeof TenantRecord> = { ...profile, ip_whitelist: [...profile.ip_whitelist] };
      return ok(answer);
    },
  }),
  route({
    method: 'PATCH',
    path: '/user/me/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: UpdateProfileBody,
    doc: {
      summary: 'Change the settings the tenant sets itself',
      description:
        'auto_refund_excess: {enabled?, threshold_usd?}; the fields given replace the current ones. Other fields of the record are set by the operator.',
      tags: ['User'],
      responses: { 200: { description: 'Tenant', schema: TenantRecord } },
    },
    handle: async (req, deps) => {
      const profile = await updateProfile({ tenant: principalOf(req).tenant, body: req.body, now: req.now }, deps);
      const answer: LazyOutput<typeof TenantRecord> = { ...profile, ip_whitelist: [...profile.ip_whitelist] };
      return ok(answer);
    },
  }),
];
