import { MAIN } from '../../domain/ledger.js';
import { isPositive, toFixed } from '../../domain/money.js';
import type { ApiUsage, AutoRefundExcess, Tenant } from '../../domain/tenant.js';
import { hasCustomFees, patchAutoRefundExcess } from '../../domain/tenant.js';
import { NotFoundError } from '../../domain/errors.js';
import type { UserPorts } from './ports.js';

/** The tenant record of spec section 2.8 (full form). */
export interface TenantProfile {
  readonly id: string;
  readonly name: string;
  readonly schema_name: string;
  readonly account_type: Tenant['account_type'];
  readonly status: Tenant['status'];
  readonly created_on: string;
  readonly contact_email: string | null;
  readonly transaction_fee: string;
  readonly is_fee_paid_by_user: boolean;
  readonly webhook_callback_url: string | null;
  readonly webhook_secret: string | null;
  readonly is_ip_whitelist_enabled: boolean;
  readonly ip_whitelist: readonly string[];
  readonly api_usage: ApiUsage;
  readonly limits: Tenant['settings']['limits'];
  /** Beyond spec 2.8: refunds of overpayments' excess opened automatically (DESIGN section 12). */
  readonly auto_refund_excess: AutoRefundExcess;
  readonly statistics: {
    readonly total_payments: number;
    readonly total_withdrawals: number;
    readonly total_volume_usd: string;
    readonly active_currencies: number;
  };
  readonly features: {
    readonly multi_wallet: boolean;
    readonly instant_withdrawals: boolean;
    readonly custom_fees: boolean;
    readonly webhook_retry: boolean;
  };
}

/** Only the first 12 characters of a webhook secret are ever shown again. */
export const maskSecret = (secret: string | null): string | null => (secret ? `${secret.slice(0, 12)}${'*'.repeat(8)}` : null);

export interface GetProfileInput {
  readonly tenant: Tenant;
  readonly now: Date;
}

export async function getProfile(input: GetProfileInput, deps: UserPorts): Promise<TenantProfile> {
  const { tenant, now } = input;
  const [usage, webhook, totals, balances] = await Promise.all([
    deps.usage.read(tenant.id, now),
    deps.webhookProfile(tenant.id),
    deps.statistics.read(tenant.id),
    deps.ledger.balances(tenant.id, MAIN),
  ]);
  return {
    id: tenant.id,
    name: tenant.name,
    schema_name: tenant.schema_name,
    account_type: tenant.account_type,
    status: tenant.status,
    created_on: tenant.created_at.slice(0, 10),
    contact_email: tenant.contact_email,
    transaction_fee: tenant.settings.transaction_fee,
    is_fee_paid_by_user: tenant.settings.is_fee_paid_by_user,
    webhook_callback_url: webhook.url,
    webhook_secret: maskSecret(webhook.secret),
    is_ip_whitelist_enabled: tenant.settings.is_ip_whitelist_enabled,
    ip_whitelist: tenant.settings.ip_whitelist,
    api_usage: usage,
    // The limits that apply: the tenant's own, else the platform's (the principal carries them resolved).
    limits: tenant.settings.limits,
    auto_refund_excess: tenant.settings.auto_refund_excess,
    statistics: {
      total_payments: totals.payments,
      total_withdrawals: totals.withdrawals,
      total_volume_usd: toFixed(totals.volumeUsd, 2, 'down'),
      active_currencies: balances.filter((row) => isPositive(row.balance.amount) || isPositive(row.balance.locked) || isPositive(row.balance.pending)).length,
    },
    features: {
      multi_wallet: deps.wallets !== undefined,
      // Every withdrawal waits for the batcher (shared/usecases/withdrawals/process.ts); none is sent on creation.
      instant_withdrawals: false,
      custom_fees: hasCustomFees(tenant.settings),
      // Deliveries to a configured endpoint are retried with backoff (shared/domain/webhooks.ts).
      webhook_retry: webhook.url !== null || webhook.subscriptions > 0,
    },
  };
}

export interface UpdateProfileInput {
  readonly tenant: Tenant;
  readonly body: { readonly auto_refund_excess?: Partial<AutoRefundExcess> | undefined };
  readonly now: Date;
}

/**
 * `PATCH /user/me/`: the settings a merchant changes itself (`auto_refund_excess`; the rest of the record is the
 * operator's), the fields given replacing the current ones; answers the record as `GET /user/me/` does.
 */
export async function updateProfile(input: UpdateProfileInput, deps: UserPorts): Promise<TenantProfile> {
  const patch = input.body.auto_refund_excess;
  if (!patch) return getProfile(input, deps);
  const auto = patchAutoRefundExcess(input.tenant.settings.auto_refund_excess, patch);
  const updated = await deps.tenants.updateSettings(input.tenant.id, { auto_refund_excess: auto });
  if (!updated) throw new NotFoundError('Tenant not found.', { tenant_id: input.tenant.id });
  return getProfile({ tenant: updated, now: input.now }, deps);
}
