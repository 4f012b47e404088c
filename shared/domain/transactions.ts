import type { CustodyDepositState, CustodyTransferState } from './custody.js';
import { CUSTODY_DEPOSIT_STATUSES, CUSTODY_TRANSFER_STATUSES } from './custody.js';
import type { JournalEntry } from './ledger.js';
import { walletIdOf } from './ledger.js';
import type { Decimal } from './money.js';
import { add, isNegative, isZero, neg, sub, sum } from './money.js';
import type { PaymentState } from './payments.js';
import { merchantCredit, PAYMENT_STATUSES, received } from './payments.js';
import type { RefundState } from './refunds.js';
import { REFUND_STATUSES } from './refunds.js';
import type { WalletTransferState } from './wallets.js';
import { TRANSFER_STATUSES } from './wallets.js';
import type { WithdrawalState } from './withdrawals.js';
import { WITHDRAWAL_STATUSES } from './withdrawals.js';

/**
 * The tenant's transaction history (spec 4.7): every money movement as one record, whatever aggregate it comes
 * from. Each repository writes the record of its aggregate in the same transaction as the aggregate's change
 * (shared/store/aggregate.ts), together with the statistics counters' delta from the previous record to the new
 * one, so the list and the statistics always agree with the movements.
 */

export const TRANSACTION_TYPES = ['payment', 'withdrawal', 'transfer', 'adjustment', 'custody', 'refund'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export const isTransactionType = (t: string): t is TransactionType => (TRANSACTION_TYPES as readonly string[]).includes(t);

/** The statuses each type of movement has (an adjustment is `completed` when posted). */
export const STATUSES_BY_TYPE: Readonly<Record<TransactionType, readonly string[]>> = {
  payment: PAYMENT_STATUSES,
  withdrawal: WITHDRAWAL_STATUSES,
  transfer: TRANSFER_STATUSES,
  adjustment: ['completed'],
  custody: [...new Set([...CUSTODY_TRANSFER_STATUSES, ...CUSTODY_DEPOSIT_STATUSES, ...WITHDRAWAL_STATUSES])],
  refund: REFUND_STATUSES,
};
/** Whether a movement of this type can have this status (a history filter naming both must agree). */
export const isStatusOfType = (type: TransactionType, status: string): boolean => STATUSES_BY_TYPE[type].includes(status);

/**
 * One movement as the history shows it. Amounts are exact decimal strings:
 * - `amount`: the movement's gross amount (a payment's amount asked, or received once paid; a withdrawal's amount
 *   the recipient gets; a transfer's or an adjustment's amount; a refund's amount, network fee included);
 * - `fee`: what the gateway charged (a payment's platform fee; a withdrawal's network and platform fees; a refund's
 *   network fee, deducted from its amount);
 * - `net_amount`: what the movement did to the balance it belongs to, unsigned (a payment credits amount less
 *   fee; a withdrawal debits amount plus fees; a transfer, an adjustment and a refund move `amount`); `direction`
 *   says which way (`in` or `out` of that balance).
 */
export interface TransactionRecord {
  readonly id: string;
  readonly type: TransactionType;
  /** The aggregate's own status (payments, withdrawals, transfers have their own lists); adjustments `completed`. */
  readonly status: string;
  /**
   * `to_sub` / `to_master` for transfers, `credit` / `debit` for adjustments, `transfer`, `deposit` or `withdrawal`
   * for custody movements, else null.
   */
  readonly subtype: string | null;
  readonly direction: 'in' | 'out';
  readonly currency: string;
  readonly amount: Decimal;
  readonly fee: Decimal;
  readonly net_amount: Decimal;
  /** The USD value fixed at creation, where the movement has one (payments; withdrawals priced then). */
  readonly amount_usd: Decimal | null;
  /** ISO 8601. */
  readonly created_at: string;
  readonly updated_at: string;
  readonly transaction_hash: string | null;
  readonly order_id: string | null;
  readonly custom_id: string | null;
  /** The wallet (sub-account) uuid the movement belongs to; null for the main account. */
  readonly wallet_id: string | null;
}

export function paymentTransaction(p: PaymentState): TransactionRecord {
  const got = received(p, 'confirmed');
  const paid = !isZero(got);
  const expected = p.isFeePaidByUser ? p.priceCrypto : sub(p.amountCrypto, p.fee);
  const credit = paid ? merchantCredit(p, got) : null;
  return {
    id: p.id,
    type: 'payment',
    status: p.status,
    subtype: null,
    direction: 'in',
    currency: p.currency,
    amount: paid ? got : p.amountCrypto,
    fee: credit?.fee ?? p.fee,
    net_amount: p.merchantReceived ?? credit?.net ?? (isNegative(expected) ? '0' : expected),
    amount_usd: p.amountUsd,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    transaction_hash: p.transactionHash,
    order_id: p.orderId,
    custom_id: p.customId,
    wallet_id: p.walletId,
  };
}

/**
 * A withdrawal of the main account or a wallet. A custody account's withdrawal is not one: it is a custody movement
 * (`custodyWithdrawalTransaction`), shown as its custody record shows it.
 */
export function withdrawalTransaction(w: WithdrawalState): TransactionRecord {
  if (w.custodyAccountId) return custodyWithdrawalTransaction(w, w.custodyAccountId);
  return {
    id: w.id,
    type: 'withdrawal',
    status: w.status,
    subtype: null,
    direction: 'out',
    currency: w.currency,
    amount: w.amount,
    fee: w.totalFee,
    net_amount: w.totalDeducted,
    amount_usd: w.amountUsd ?? null,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    transaction_hash: w.transactionHash,
    order_id: null,
    custom_id: w.customId,
    wallet_id: w.accountId,
  };
}

/** A transfer belongs to its wallet: `to_sub` comes in, `to_master` goes out. */
export function transferTransaction(t: WalletTransferState): TransactionRecord {
  return {
    id: t.id,
    type: 'transfer',
    status: t.status,
    subtype: t.type,
    direction: t.type === 'to_sub' ? 'in' : 'out',
    currency: t.currency,
    amount: t.amount,
    fee: '0',
    net_amount: t.amount,
    amount_usd: null,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    transaction_hash: null,
    order_id: null,
    custom_id: null,
    wallet_id: t.walletId,
  };
}

/** An operator adjustment (a journal entry of type `adjustment` on one customer account). */
export function adjustmentTransaction(entry: JournalEntry): TransactionRecord {
  const customer = entry.lines.filter((l) => !l.account.startsWith('platform:') && l.field === 'amount');
  const delta = sum(customer.map((l) => l.delta));
  const amount = isNegative(delta) ? neg(delta) : delta;
  return {
    id: entry.id,
    type: 'adjustment',
    status: 'completed',
    subtype: isNegative(delta) ? 'debit' : 'credit',
    direction: isNegative(delta) ? 'out' : 'in',
    currency: entry.currency,
    amount,
    fee: '0',
    net_amount: amount,
    amount_usd: null,
    created_at: entry.createdAt,
    updated_at: entry.createdAt,
    transaction_hash: null,
    order_id: null,
    custom_id: entry.reference?.id ?? null,
    wallet_id: customer.map((l) => walletIdOf(l.account)).find((w) => w !== null) ?? null,
  };
}

/**
 * A move between two custody accounts (shared/domain/custody.ts): it leaves the source account, named in
 * `custom_id` with the transfer's reference in `order_id`.
 */
export function custodyTransferTransaction(t: CustodyTransferState): TransactionRecord {
  return {
    id: t.transferId,
    type: 'custody',
    status: t.status,
    subtype: 'transfer',
    direction: 'out',
    currency: t.currency,
    amount: t.amount,
    fee: '0',
    net_amount: t.amount,
    amount_usd: null,
    created_at: t.createdAt,
    updated_at: t.completedAt,
    transaction_hash: null,
    order_id: t.reference,
    custom_id: t.fromAccountId,
    wallet_id: null,
  };
}

/**
 * A custody account's withdrawal (type `custody`, subtype `withdrawal`), with the amounts of its custody record:
 * `amount` is what leaves the account (fees included), `fee` the network and platform fees deducted from it, and
 * `net_amount`, what it did to the account, is `amount` again. The account is in `custom_id` as for every custody
 * movement, the withdrawal's own custom_id in `order_id` (where a transfer has its reference).
 */
function custodyWithdrawalTransaction(w: WithdrawalState, accountId: string): TransactionRecord {
  return {
    id: w.id,
    type: 'custody',
    status: w.status,
    subtype: 'withdrawal',
    direction: 'out',
    currency: w.currency,
    amount: w.totalDeducted,
    fee: w.totalFee,
    net_amount: w.totalDeducted,
    amount_usd: w.amountUsd ?? null,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    transaction_hash: w.transactionHash,
    order_id: w.customId,
    custom_id: accountId,
    wallet_id: null,
  };
}

/**
 * A refund of a payment (DESIGN section 12): what leaves the balance the payment credited, from its acceptance (the
 * hold) to its end. `amount` is the refund's amount (what the merchant gives back, the network fee included; at
 * completion what was charged), `fee` its network fee (the estimate until completion, then what the chain took),
 * `net_amount` the amount again; the payment it gives back is named in `custom_id` (as an adjustment names what it
 * refers to). Its payout withdrawal has no record of its own: the movement is the refund's, counted once. It has no
 * USD value of its own (null).
 */
export function refundTransaction(r: RefundState): TransactionRecord {
  return {
    id: r.id,
    type: 'refund',
    status: r.status,
    subtype: null,
    direction: 'out',
    currency: r.currency,
    amount: r.amount,
    fee: r.networkFee,
    net_amount: r.amount,
    amount_usd: null,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    transaction_hash: r.transactionHash,
    order_id: null,
    custom_id: r.paymentId,
    wallet_id: walletIdOf(r.account),
  };
}

/** Whether a record is a withdrawal's, main or custody (its amounts are spelled as withdrawals' are: 8 places). */
export const isWithdrawalMovement = (r: Pick<TransactionRecord, 'type' | 'subtype'>): boolean =>
  r.type === 'withdrawal' || (r.type === 'custody' && r.subtype === 'withdrawal');

/** A deposit to a custody account (its status: confirming, credited, sweeping, swept, dropped). */
export function custodyDepositTransaction(d: CustodyDepositState): TransactionRecord {
  return {
    id: d.depositId,
    type: 'custody',
    status: d.status,
    subtype: 'deposit',
    direction: 'in',
    currency: d.currency,
    amount: d.amount,
    fee: '0',
    net_amount: d.amount,
    amount_usd: null,
    created_at: d.detectedAt,
    updated_at: d.updatedAt,
    transaction_hash: d.txHash,
    order_id: null,
    custom_id: d.accountId,
    wallet_id: null,
  };
}

/* ------------------------------------------------------------------------------------------------ statistics */

/**
 * Statistics counters, per tenant and UTC day of creation (sharded): what each record contributes, so a change
 * adds `contribution(next) - contribution(previous)` in its own transaction. Counter names are attribute names:
 * - `n|<type>|<status>|<currency>`: how many movements are in that status now;
 * - `v|<type>|<currency>`: the volume of completed movements (their `amount`);
 * - `f|<type>|<currency>`: the fees of completed movements;
 * - `u|<type>`: the USD volume of completed movements with a USD value.
 */
export type StatsDelta = Readonly<Record<string, Decimal>>;

const COMPLETED = 'completed';

function contribution(r: TransactionRecord): Record<string, Decimal> {
  const out: Record<string, Decimal> = { [`n|${r.type}|${r.status}|${r.currency}`]: '1' };
  if (r.status !== COMPLETED) return out;
  out[`v|${r.type}|${r.currency}`] = r.amount;
  out[`f|${r.type}|${r.currency}`] = r.fee;
  if (r.amount_usd !== null) out[`u|${r.type}`] = r.amount_usd;
  return out;
}

/** What a change from `previous` (null: a new movement) to `next` adds to the counters of `next`'s day. */
export function statsDelta(previous: TransactionRecord | null, next: TransactionRecord): StatsDelta {
  const out: Record<string, Decimal> = { ...contribution(next) };
  if (previous) for (const [k, v] of Object.entries(contribution(previous))) out[k] = sub(out[k] ?? '0', v);
  return Object.fromEntries(Object.entries(out).filter(([, v]) => !isZero(v)));
}

/** The UTC day a record's counters live on. */
export const statsDay = (r: Pick<TransactionRecord, 'created_at'>): string => r.created_at.slice(0, 10);

export interface TransactionStats {
  readonly date_from: string;
  readonly date_to: string;
  /** Per type: movements created in the period, in total and by current status. */
  readonly counts: Record<string, { readonly total: number; readonly by_status: Record<string, number> }>;
  /** Per currency, per type: the volume and fees of completed movements. */
  readonly volume: Record<string, Record<string, { readonly amount: Decimal; readonly fees: Decimal }>>;
  /** Per type: the USD volume of completed movements that have a USD value. */
  readonly volume_usd: Record<string, Decimal>;
  readonly total_volume_usd: Decimal;
  /** Per currency: the fees the tenant paid on completed movements. */
  readonly fees: Record<string, Decimal>;
}

/** A tenant's totals (`/user/me/` `statistics`) from the all-time counters: movements created, USD volume of completed payments. */
export function tenantTotalsOf(sums: Readonly<Record<string, Decimal>>): { payments: number; withdrawals: number; volumeUsd: Decimal } {
  const count = (type: TransactionType) =>
    Object.entries(sums)
      .filter(([name]) => name.startsWith(`n|${type}|`))
      .reduce((n, [, v]) => n + Number(v), 0);
  return { payments: count('payment'), withdrawals: count('withdrawal'), volumeUsd: add('0', sums['u|payment'] ?? '0') };
}

/** The statistics of a period from the sums of its counters. */
export function statsOf(period: { from: string; to: string }, sums: Readonly<Record<string, Decimal>>): TransactionStats {
  const counts: Record<string, { total: number; by_status: Record<string, number> }> = {};
  const volume: Record<string, Record<string, { amount: Decimal; fees: Decimal }>> = {};
  const usd: Record<string, Decimal> = {};
  const fees: Record<string, Decimal> = {};
  for (const type of TRANSACTION_TYPES) counts[type] = { total: 0, by_status: {} };
  for (const [name, value] of Object.entries(sums).sort(([a], [b]) => a.localeCompare(b))) {
    if (isZero(value)) continue;
    const [kind, type = '', a = ''] = name.split('|');
    if (!isTransactionType(type)) continue;
    if (kind === 'n') {
      const n = Number(value);
      const c = counts[type] ?? { total: 0, by_status: {} };
      c.total += n;
      c.by_status[a] = (c.by_status[a] ?? 0) + n;
      counts[type] = c;
    } else if (kind === 'v' || kind === 'f') {
      const perType = (volume[a] ??= {});
      const entry = (perType[type] ??= { amount: '0', fees: '0' });
      if (kind === 'v') entry.amount = add(entry.amount, value);
      else {
        entry.fees = add(entry.fees, value);
        fees[a] = add(fees[a] ?? '0', value);
      }
    } else if (kind === 'u') usd[type] = add(usd[type] ?? '0', value);
  }
  return {
    date_from: period.from,
    date_to: period.to,
    counts,
    volume,
    volume_usd: usd,
    total_volume_usd: sum(Object.values(usd)),
    fees,
  };
}
