import type { Scope } from './scopes.js';

export const TENANT_STATUSES = ['active', 'suspended', 'pending', 'trial'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];
export type AccountType = 'individual' | 'business';

/** Tenant limits are decimal strings in USD; null means no limit. */
export interface TenantLimits {
  readonly daily_payment_limit: string | null;
  readonly daily_withdrawal_limit: string | null;
  readonly max_payment_amount: string | null;
  readonly max_withdrawal_amount: string | null;
}

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

export function defaultSettings(defaults: TenantDefaults): TenantSettings {
  return {
    transaction_fee: '1',
    is_fee_paid_by_user: false,
    requests_per_hour: defaults.requestsPerHour,
    payment_creations_per_hour: defaults.paymentCreationsPerHour,
    payment_expiry_minutes: 60,
    is_ip_whitelist_enabled: false,
    ip_whitelist: [],
    limits: { daily_payment_limit: null, daily_withdrawal_limit: null, max_payment_amount: null, max_withdrawal_amount: null },
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
