import type { Decimal } from '../../domain/money.js';
import type { ApiUsage } from '../../domain/tenant.js';
import type { BalancesPorts } from '../balances/ports.js';
import type { LedgerPort } from '../ledger/ports.js';
import type { TenantRepository } from '../tenants/ports.js';

/** What the profile needs: the tenant's API usage and its webhook settings (variant A). */
export interface UsageReader {
  read(tenantId: string, now: Date): Promise<ApiUsage>;
}

export interface WebhookProfile {
  readonly url: string | null;
  /** The visible part of the secret. */
  readonly secret: string | null;
  /** Active variant-B subscriptions. */
  readonly subscriptions: number;
}

/** A tenant's totals, kept by its payments and withdrawals as they commit. */
export interface TenantStatistics {
  read(tenantId: string): Promise<{ readonly payments: number; readonly withdrawals: number; readonly volumeUsd: Decimal }>;
}

export interface UserPorts {
  readonly usage: UsageReader;
  readonly webhookProfile: (tenantId: string) => Promise<WebhookProfile>;
  readonly statistics: TenantStatistics;
  /** The currencies the tenant holds (`statistics.active_currencies`). */
  readonly ledger: Pick<LedgerPort, 'balances'>;
  /** The tenant's wallets, where this deployment serves them (`features.multi_wallet`). */
  readonly wallets?: BalancesPorts['wallets'];
  /** The tenant records, for the settings a merchant changes itself (`PATCH /user/me/`). */
  readonly tenants: Pick<TenantRepository, 'updateSettings'>;
}
