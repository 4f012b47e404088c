import type { ServedNetworks } from '../../domain/currencies.js';
import type { Decimal } from '../../domain/money.js';
import type { RefundChange, RefundState, RefundStatus } from '../../domain/refunds.js';
import type { LedgerPort } from '../ledger/ports.js';
import type { PaymentRepository } from '../payments/ports.js';
import type { WriteItem } from '../ports.js';
import type { WithdrawalChange } from '../../domain/withdrawals.js';
import type { WithdrawalFeeDeps } from '../withdrawals/network-fees.js';
import type { WithdrawalRepository } from '../withdrawals/ports.js';

/** What the refund use cases need from outside, as ports; shared/store/refunds.ts implements the repository. */

export interface RefundCreation {
  /** The new refund, its events and its hold (`openRefund`). */
  readonly change: RefundChange;
  /**
   * What the merchant was credited for the payment (`refundable(...).base`): the payment's refunded total, raised by
   * the refund in the same transaction, is conditioned to stay within it.
   */
  readonly base: Decimal;
  /** Writes that commit with the refund, given it as stored (the Idempotency-Key record and its answer). */
  readonly alsoWrite?: (stored: RefundState) => readonly WriteItem[];
}

/** A page of a tenant's refunds: newest first, after `cursor` (the refund the previous page ended with). */
export interface TenantRefundsQuery {
  readonly status?: RefundStatus;
  readonly limit: number;
  readonly cursor?: { readonly createdAt: string; readonly id: string };
}

export interface RefundRepository {
  get(tenantId: string, refundId: string): Promise<RefundState | null>;
  /** A payment's refunds, oldest first (a per-payment index, never a Scan). */
  listByPayment(tenantId: string, paymentId: string): Promise<RefundState[]>;
  /** A tenant's refunds, newest first (a per-tenant index, never a Scan); `more` when refunds follow the page. */
  listByTenant(tenantId: string, query: TenantRefundsQuery): Promise<{ readonly refunds: RefundState[]; readonly more: boolean }>;
  /** The payment's refunded total: its refunds accepted and not released (0 when it has none). */
  refunded(tenantId: string, paymentId: string): Promise<Decimal>;
  /**
   * The refund, its hold (InsufficientBalanceError when the account cannot cover it), the payment's refunded total
   * (400 `invalid_request` on `amount` past `base`), its claim link, its events and `alsoWrite`, in ONE transaction.
   */
  create(creation: RefundCreation, now: Date): Promise<RefundState>;
  /**
   * The writes that create a refund held by its payment's credit (`heldInCredit`: the payment's save posts the hold),
   * with its payment's refunded total (conditioned within `base`), claim link, events and `alsoWrite`, to commit in
   * the payment's transaction; and the refund as stored.
   */
  creationItems(creation: RefundCreation, now: Date): { readonly stored: RefundState; readonly items: readonly WriteItem[] };
  /**
   * Saves `change` of `previous` with its events, its ledger entry, the payment's refunded total when the hold is
   * released, and `alsoWrite`, in ONE transaction conditioned on the version read (ConflictError when it moved).
   */
  save(previous: RefundState, change: RefundChange, now: Date, alsoWrite?: (stored: RefundState) => readonly WriteItem[]): Promise<RefundState>;
  /**
   * The writes of a change that posts no entry (its item conditioned on the version read, its events, the payment's
   * refunded total where the amount comes back), to commit in its withdrawal's transaction; and the refund as stored.
   */
  changeItems(previous: RefundState, change: RefundChange, now: Date): { readonly stored: RefundState; readonly items: readonly WriteItem[] };
  /** Refunds of every tenant awaiting their address whose claim deadline is at or before `time`, oldest deadline first. */
  dueClaims(time: string, limit: number): Promise<RefundState[]>;
  /** The refund a claim link names (tenant and id), or null. */
  claim(token: string): Promise<{ readonly tenantId: string; readonly refundId: string } | null>;
}

/** The withdrawals that pay refunds, as the refund use cases write them (shared/store/withdrawals.ts). */
export interface RefundPayouts {
  get: WithdrawalRepository['get'];
  /** Saves a change of the withdrawal with `alsoWrite` in ONE transaction (the refund's change rides along). */
  save: WithdrawalRepository['save'];
  /** The writes that create a refund's withdrawal (no entry: the refund's hold is its hold), in the refund's transaction. */
  creationItems(change: WithdrawalChange, now: Date): readonly WriteItem[];
}

/** What the refund use cases read and write (shared/runtime/refunds.ts wires the real ones). */
export interface RefundsDeps {
  readonly refunds: RefundRepository;
  /** The withdrawals that pay refunds: created with a refund that has its address, cancelled with it. */
  readonly payouts: RefundPayouts;
  /** The payment refunded; saved with the refund when the refund settles it. */
  readonly payments: Pick<PaymentRepository, 'get' | 'save'>;
  readonly ledger: Pick<LedgerPort, 'balance'>;
  /** The network fees a refund's payout is priced with (a withdrawal's). */
  readonly fees: WithdrawalFeeDeps;
  readonly served: ServedNetworks;
  /** The claim links' origin (`PUBLIC_BASE_URL`); null: the host the request came to. */
  readonly settings: { readonly publicBaseUrl: string | null };
}
