import type { Clock } from '../../domain/clock.js';
import type { Decimal } from '../../domain/money.js';
import type { TransactionRecord, TransactionType } from '../../domain/transactions.js';

/**
 * The tenant's transaction history: every money movement (payment, withdrawal, wallet transfer, operator
 * adjustment, later custody movements) as one list, served from a per-tenant index written in the same
 * transactions as the movements. The list endpoint, the statistics and the export worker read it through this
 * port; `shared/store/transactions.ts` is the DynamoDB one.
 */

export { TRANSACTION_TYPES } from '../../domain/transactions.js';
export type { TransactionRecord, TransactionType } from '../../domain/transactions.js';

export interface TransactionFilter {
  readonly type?: TransactionType;
  readonly status?: string;
  readonly currency?: string;
  readonly walletId?: string;
  /** Inclusive bounds on `created_at`, ISO 8601. */
  readonly dateFrom?: string;
  readonly dateTo?: string;
}

export interface TransactionPage {
  /** Newest first. */
  readonly items: readonly TransactionRecord[];
  /** Opaque; present while more items may match. */
  readonly cursor?: string;
}

export interface TransactionHistory {
  /**
   * One page of the tenant's movements matching the filter, newest first, from where `cursor` left off (or after
   * skipping `offset` matches).
   */
  page(
    tenantId: string,
    filter: TransactionFilter,
    options: { readonly limit: number; readonly cursor?: string; readonly offset?: number },
  ): Promise<TransactionPage>;
  /** How many movements match the filter. */
  count(tenantId: string, filter: TransactionFilter): Promise<number>;
  /** The sums of the statistics counters (shared/domain/transactions.ts) of the UTC days `from` to `to`, inclusive. */
  statsSums(tenantId: string, from: string, to: string): Promise<Record<string, Decimal>>;
  /** The sums of the same counters over all time (the tenant's totals). */
  allTimeSums(tenantId: string): Promise<Record<string, Decimal>>;
}

export interface TransactionsPorts {
  readonly history: TransactionHistory;
  readonly clock: Clock;
}
