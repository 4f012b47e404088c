import { eq } from './money.js';
import type { Scope } from './scopes.js';

export const TENANT_STATUSES = ['active', 'suspended', 'pending', 'trial'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];
export type AccountType = 'individual' | 'business';

/** Tenant limits are decimal strings in USD; null means no limit (or, for a tenant's own, the platform's). */
export const LIMIT_NAMES = ['daily_payment_limit', 'daily_withdrawal_limit', 'max_payment_amount', 'max_withdrawal_amount'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type TenantLimits = { readonly [K in LimitName]: string | null };

/**
 * The limits that apply to a tenant: its own where the operator set one, else the platform's default. A tenant's
 * stored `limits` hold only its own (null: none of its own), so a change of the platform default reaches every
 * tenant that has not been given one.
 */
export function effectiveLimits(own: TenantLimits, platform: TenantLimits): TenantLimits {
  return Object.fromEntries(LIMIT_NAMES.map((name) => [name, own[name] ?? platform[name]])) as TenantLimits;
}

/** The tenant as a request sees it: its settings with the limits that apply. */
export function withPlatformLimits(tenant: Tenant, platform: TenantLimits): Tenant {
  return { ...tenant, settings: { ...tenant.settings, limits: effectiveLimits(tenant.settings.limits, platform) } };
}

/**
 * `auto_refund_excess`: when an overpaid payment completes, a claim-link refund of its excess is opened in the
 * transaction that credits it, where the excess is worth at least `threshold_usd` at the payment's own price (and is
 * at least the smallest refund the network allows). Off by default.
 */
export interface AutoRefundExcess {
  readonly enabled: boolean;
  /** USD, a decimal string with at most 2 decimals. */
  readonly threshold_usd: string;
}

export const DEFAULT_AUTO_REFUND_EXCESS: AutoRefundExcess = Object.freeze({ enabled: false, threshold_usd: '1' });

/** A change of the setting: the fields given replace the current ones. */
export const patchAutoRefundExcess = (current: AutoRefundExcess, patch: Partial<AutoRefundExcess>): AutoRefundExcess => ({
  enabled: patch.enabled ?? current.enabled,
  threshold_usd: patch.threshold_usd ?? current.threshold_usd,
});

export interface TenantSettings {
  /** Platform fee, percent as a decimal string ("1" is 1 %). */
  readonly transaction_fee: string;
  readonly is_fee_paid_by_user: boolean;
  readonly requests_per_hour: number;
  readonly payment_creations_per_hour: number;
  readonly payment_expiry_minutes: number;
  readonly is_ip_whitelist_enabled: boolean;
  readonly ip_whitelist: readonly string[];
  readonly limits: TenantLimits;
  readonly auto_refund_excess: AutoRefundExcess;
}

/** A change of settings: the fields given replace the stored ones; each limit given replaces that limit only. */
export type SettingsPatch = Partial<Omit<TenantSettings, 'limits'>> & { readonly limits?: Partial<TenantLimits> };

/** A settings patch applied to settings (the in-memory form of what the repository writes). */
export function patchSettings(settings: TenantSettings, patch: SettingsPatch): TenantSettings {
  const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  const { limits, ...rest } = patch;
  return { ...settings, ...defined(rest), limits: { ...settings.limits, ...defined(limits ?? {}) } };
}

export interface Tenant {
  readonly id: string;
  readonly name: string;
  readonly schema_name: string;
  readonly account_type: AccountType;
  readonly status: TenantStatus;
  readonly created_at: string;
  readonly contact_email: string | null;
  /** The most a credential of this tenant may hold; only the operator grants `admin`. */
  readonly allowed_scopes: readonly Scope[];
  readonly settings: TenantSettings;
}

export interface TenantDefaults {
  readonly requestsPerHour: number;
  readonly paymentCreationsPerHour: number;
}

/** The platform's fee terms; a tenant given others has custom fees (`features.custom_fees` of spec 2.8). */
export const DEFAULT_FEES = { transaction_fee: '1', is_fee_paid_by_user: false } as const;

export function hasCustomFees(settings: TenantSettings): boolean {
  return !eq(settings.transaction_fee, DEFAULT_FEES.transaction_fee) || settings.is_fee_paid_by_user !== DEFAULT_FEES.is_fee_paid_by_user;
}

export function defaultSettings(defaults: TenantDefaults): TenantSettings {
  return {
    ...DEFAULT_FEES,
    requests_per_hour: defaults.requestsPerHour,
    payment_creations_per_hour: defaults.paymentCreationsPerHour,
    payment_expiry_minutes: 60,
    is_ip_whitelist_enabled: false,
    ip_whitelist: [],
    limits: { daily_payment_limit: null, daily_withdrawal_limit: null, max_payment_amount: null, max_withdrawal_amount: null },
    auto_refund_excess: DEFAULT_AUTO_REFUND_EXCESS,
  };
}

/** `acme_corp_3f9a`: a readable, unique tenant identifier derived from the name. */
export function schemaNameFor(name: string, suffix: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  return `${slug || 'tenant'}_${suffix}`;
}

export function canServe(tenant: Tenant): boolean {
  return tenant.status !== 'suspended';
}

/** A tenant's API usage (spec section 2.8), from the per-day request counters. */
export interface ApiUsage {
  readonly requests_today: number;
  readonly requests_this_month: number;
  readonly last_request: string | null;
}
