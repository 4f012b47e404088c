/**
 * The tenant's transaction history: every money movement (payment, withdrawal, wallet transfer, operator
 * adjustment, later custody movements) as one list, served from a per-tenant index written in the same
 * transactions as the movements. The list endpoint and the export worker both read it through this port.
 */

export const TRANSACTION_TYPES = ['payment', 'withdrawal', 'transfer', 'adjustment'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** One movement as the history shows it. Amounts are exact decimal strings. */
export interface TransactionRecord {
  readonly id: string;
  readonly type: TransactionType;
  readonly status: string;
  readonly currency: string;
  readonly amount: string;
  readonly fee: string;
  readonly net_amount: string;
  /** ISO 8601. */
  readonly created_at: string;
  readonly updated_at: string;
  readonly transaction_hash: string | null;
  readonly order_id: string | null;
  readonly custom_id: string | null;
  /** The wallet (sub-account) uuid the movement belongs to; null for the main account. */
  readonly wallet_id: string | null;
}

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
  /** Opaque; present while more items match. */
  readonly cursor?: string;
}

export interface TransactionHistory {
  /** One page of the tenant's movements matching the filter, newest first, from where `cursor` left off. */
  page(tenantId: string, filter: TransactionFilter, options: { readonly limit: number; readonly cursor?: string }): Promise<TransactionPage>;
}
