import * as z from 'zod';
import { NotFoundError } from '../../domain/errors.js';
import { isValidIpOrCidr } from '../../domain/ip.js';
import { SCOPES, sortScopes } from '../../domain/scopes.js';
import { LIMIT_NAMES, patchAutoRefundExcess, TENANT_STATUSES, type LimitName, type Tenant, type SettingsPatch } from '../../domain/tenant.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { TenantsPorts } from './ports.js';

type Deps = Pick<TenantsPorts, 'tenants'>;

/** Operator use cases over existing tenants. */

export async function requireTenant(tenantId: string, deps: Deps): Promise<Tenant> {
  const tenant = await deps.tenants.get(tenantId);
  if (!tenant) throw new NotFoundError(`No tenant ${tenantId}.`, { tenant_id: tenantId });
  return tenant;
}

export const allTenants = (deps: Deps): Promise<Tenant[]> => deps.tenants.list();

export const SetStatusInput = lazySchema(() => z.object({ tenant_id: z.string().uuid(), status: z.enum(TENANT_STATUSES) }));

export async function changeTenantStatus(raw: z.input<ReturnType<typeof SetStatusInput>>, deps: Deps): Promise<Tenant> {
  const input = SetStatusInput().parse(raw);
  if (!(await deps.tenants.setStatus(input.tenant_id, input.status))) throw new NotFoundError(`No tenant ${input.tenant_id}.`);
  return requireTenant(input.tenant_id, deps);
}

/** A USD threshold: cents at most, zero allowed (every excess the network can pay back). */
export const usdThreshold = lazySchema(() => z.string().regex(/^\d+(\.\d{1,2})?$/, 'Must be a USD amount with at most 2 decimals.'));
/** A change of `auto_refund_excess`: the fields given replace the current ones. */
export const AutoRefundExcessPatch = lazySchema(() => z.object({ enabled: z.boolean().optional(), threshold_usd: usdThreshold().optional() }).strict());

export const ConfigureTenantInput = lazySchema(() => {
  const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'Must be a non-negative decimal.');
  /** A tenant limit in USD (cents at most), or null to fall back to the platform default. */
  const usdLimit = z
    .string()
    .regex(/^\d+(\.\d{1,2})?$/, 'Must be a USD amount with at most 2 decimals, or "default".')
    .refine((v) => !/^0+(\.0+)?$/.test(v), 'Must be above zero (suspend the tenant to stop it).')
    .nullable();
  return z.object({
    tenant_id: z.string().uuid(),
    requests_per_hour: z.number().int().positive().optional(),
    payment_creations_per_hour: z.number().int().positive().optional(),
    payment_expiry_minutes: z.number().int().min(1).max(1440).optional(),
    transaction_fee: decimal.optional(),
    is_fee_paid_by_user: z.boolean().optional(),
    is_ip_whitelist_enabled: z.boolean().optional(),
    ip_whitelist: z.array(z.string().refine(isValidIpOrCidr, 'Must be an IP address or CIDR range.')).optional(),
    scopes: z.array(z.enum(SCOPES)).min(1).optional(),
    limits: z
      .object(Object.fromEntries(LIMIT_NAMES.map((name) => [name, usdLimit.optional()])) as Record<LimitName, z.ZodOptional<typeof usdLimit>>)
      .optional(),
    auto_refund_excess: AutoRefundExcessPatch().optional(),
  });
});

export async function configureTenant(raw: z.input<ReturnType<typeof ConfigureTenantInput>>, deps: Deps): Promise<Tenant> {
  const { tenant_id: tenantId, scopes, limits, auto_refund_excess: autoRefund, ...settings } = ConfigureTenantInput().parse(raw);
  const current = autoRefund ? (await requireTenant(tenantId, deps)).settings.auto_refund_excess : null;
  const patch: SettingsPatch = {
    ...settings,
    ...(limits ? { limits } : {}),
    ...(autoRefund && current ? { auto_refund_excess: patchAutoRefundExcess(current, autoRefund) } : {}),
  };
  const updated = await deps.tenants.updateSettings(tenantId, patch);
  if (!updated) throw new NotFoundError(`No tenant ${tenantId}.`);
  if (scopes) await deps.tenants.setAllowedScopes(tenantId, sortScopes(scopes));
  return requireTenant(tenantId, deps);
}
