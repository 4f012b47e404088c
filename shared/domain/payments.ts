import type { CurrencyDefinition } from './currencies.js';
import { paymentSplit } from './fees.js';
import type { Decimal } from './money.js';
import { fromBaseUnits, isPositive, lt, mul, percentOf, ROUND_PAYABLE, sub, toBaseUnits, toFixed } from './money.js';
import type { UsdRates } from './rates.js';
import { convert, FIAT_PRECISION } from './rates.js';

/**
 * Payments, pure: statuses and their guards, the amount a customer must pay, and the transition function
 * that turns a payment plus a fact (a deposit, its confirmations, a reorg, the sweep, the clock) into the
 * new payment and the events it produced. Saving happens after, in the store, in one transaction.
 *
 * Status axis: waiting -> confirming -> confirmed -> sending -> completed, plus expired, failed, cancelled
 * and partially_paid. Exceptions live on a separate axis, `flags`:
 *
 * - `underpaid`: the confirmed deposits are below the amount (less the tolerance): status `partially_paid`;
 *   a further deposit moves it back to `confirming` and can complete it.
 * - `overpaid`: more than the amount arrived: completed, and the whole received amount (net of the fee) is
 *   credited.
 * - `paid_late`: a deposit arrived after expiry, within the watch window: recorded, credited, announced.
 * - `wrong_token`: another catalogue token reached the address: the deposit is recorded (status
 *   `wrong_currency`), nothing is credited automatically (an operator sweeps and decides).
 * - A native coin sent to a payment in a token leaves no log and is not detected by the scanner; the funds
 *   stay in the forwarder address, recoverable by the factory's `flushNative` (decided: no automatic credit).
 */

export const PAYMENT_STATUSES = [
  'waiting',
  'confirming',
  'confirmed',
  'sending',
  'completed',
  'expired',
  'failed',
  'cancelled',
  'partially_paid',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses the list filter accepts (spec 4.3, plus the two DESIGN section 10 adds). */
export const LIST_FILTER_STATUSES = ['waiting', 'confirming', 'completed', 'expired', 'failed', 'cancelled', 'partially_paid'] as const;

export const PAYMENT_FLAGS = ['underpaid', 'overpaid', 'paid_late', 'wrong_token'] as const;
export type PaymentFlag = (typeof PAYMENT_FLAGS)[number];

export function isPaymentStatus(value: string): value is PaymentStatus {
  return (PAYMENT_STATUSES as readonly string[]).includes(value);
}

/** Terminal: nothing moves it any more (an expired payment can still be paid late, see `acceptsDeposits`). */
export const isTerminal = (s: PaymentStatus): boolean => s === 'completed' || s === 'failed' || s === 'cancelled';
/** The merchant may cancel only while waiting and nothing arrived. */
export const isCancellable = (p: Pick<PaymentState, 'status' | 'deposits'>): boolean => p.status === 'waiting' && p.deposits.length === 0;
/** Statuses in which a matching deposit counts towards the payment. */
export const acceptsDeposits = (s: PaymentStatus): boolean => s === 'waiting' || s === 'confirming' || s === 'partially_paid' || s === 'expired';
/** Order, editable fields may change until the payment is settled. */
export const isEditable = (s: PaymentStatus): boolean => !isTerminal(s) && s !== 'sending';

/** Default hours after expiry during which a deposit is still recorded and credited (paid late). */
export const LATE_WATCH_HOURS = 24;

/** `wrong_currency`: another token reached the address; `uncredited`: arrived after the watch window. Neither counts. */
export type DepositStatus = 'pending' | 'confirmed' | 'wrong_currency' | 'uncredited';

/** A deposit that counts towards its payment. */
export const counts = (d: Pick<Deposit, 'status'>): boolean => d.status !== 'wrong_currency' && d.status !== 'uncredited';

export interface Deposit {
  /** `<network>:<tx hash>:<log index>` (or `:native:<n>` for a balance-check deposit). */
  readonly id: string;
  readonly currency: string;
  readonly amount: Decimal;
  readonly amountBase: string;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: number;
  readonly blockHash: string;
  readonly confirmations: number;
  readonly detectedAt: string;
  readonly status: DepositStatus;
  readonly late: boolean;
}

export interface PaymentState {
  readonly id: string;
  readonly tenantId: string;
  readonly status: PaymentStatus;
  readonly currency: string;
  readonly network: string;
  readonly token: string;
  readonly decimals: number;
  readonly priceAmount: Decimal;
  readonly priceCurrency: string;
  readonly amountUsd: Decimal;
  /** What the customer must send, at the display precision. */
  readonly amountCrypto: Decimal;
  /** The price part of it (without the fee when the customer pays the fee). */
  readonly priceCrypto: Decimal;
  readonly fee: Decimal;
  readonly feePercent: Decimal;
  readonly address: string;
  readonly salt: string;
  readonly isFixedRate: boolean;
  readonly isFeePaidByUser: boolean;
  readonly orderId: string | null;
  readonly orderDescription: string | null;
  readonly callbackUrl: string | null;
  readonly customId: string | null;
  readonly walletId: string | null;
  readonly customerEmail: string | null;
  readonly expiryTime: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly transactionHash: string | null;
  readonly deposits: readonly Deposit[];
  readonly flags: readonly PaymentFlag[];
  readonly merchantReceived: Decimal | null;
  readonly merchantReceivedUsd: Decimal | null;
  readonly sweepTxHash: string | null;
  /** Optimistic lock: every save conditions on it and increments it. */
  readonly version: number;
}

/* ---------------------------------------------------------------- amounts */

export interface PriceInput {
  readonly price: Decimal;
  readonly priceCurrency: string;
  readonly currency: CurrencyDefinition;
  readonly rates: UsdRates;
  readonly feePercent: Decimal;
  readonly isFeePaidByUser: boolean;
}

export interface Quote {
  readonly priceCrypto: Decimal;
  readonly amountCrypto: Decimal;
  readonly fee: Decimal;
  readonly merchantReceives: Decimal;
  readonly amountUsd: Decimal;
  readonly amountBase: bigint;
}

/** The crypto amount of a price: exact at the display precision, rounded UP; the fee as DESIGN section 4 says. */
export function quote(input: PriceInput): Quote {
  const dp = input.currency.displayPrecision;
  const priceCrypto = convert(input.price, input.priceCurrency, input.currency.code, input.rates, ROUND_PAYABLE, dp);
  const split = paymentSplit({
    amount: priceCrypto,
    percent: input.feePercent,
    precision: dp,
    minFee: input.currency.minFee,
    isFeePaidByUser: input.isFeePaidByUser,
  });
  const amountUsd = toFixed(convert(input.price, input.priceCurrency, 'USD', input.rates, 'half-up', FIAT_PRECISION), FIAT_PRECISION, 'half-up');
  return {
    priceCrypto,
    amountCrypto: split.customerPays,
    fee: split.fee,
    merchantReceives: split.merchantReceives,
    amountUsd,
    amountBase: toBaseUnits(split.customerPays, input.currency.decimals),
  };
}

/** Received amount of the deposits that count (right currency), by status. */
export function received(p: Pick<PaymentState, 'deposits' | 'decimals'>, only?: DepositStatus): Decimal {
  let total = 0n;
  for (const d of p.deposits) {
    if (!counts(d)) continue;
    if (only && d.status !== only) continue;
    total += BigInt(d.amountBase);
  }
  return fromBaseUnits(total, p.decimals);
}

/**
 * The amount that settles the payment: the crypto amount, or (not fixed rate) the price re-priced at the
 * detection rate; less the underpayment tolerance (percent of the amount).
 */
export function requiredAmount(p: PaymentState, tolerancePercent: Decimal, repriced?: Decimal): Decimal {
  const base = !p.isFixedRate && repriced !== undefined && lt(repriced, p.amountCrypto) ? repriced : p.amountCrypto;
  return isPositive(tolerancePercent) ? sub(base, percentOf(base, tolerancePercent, 18, 'down')) : base;
}

/** What the merchant is credited for `receivedAmount`: everything received less the platform fee. */
export function merchantCredit(p: Pick<PaymentState, 'fee'>, receivedAmount: Decimal): { net: Decimal; fee: Decimal } {
  const fee = lt(receivedAmount, p.fee) ? receivedAmount : p.fee;
  return { net: sub(receivedAmount, fee), fee };
}

/* ---------------------------------------------------------------- transitions */

export type PaymentFact =
  | { readonly kind: 'deposit'; readonly deposit: Deposit }
  | { readonly kind: 'confirmations'; readonly byDeposit: Readonly<Record<string, number>>; readonly confirmationsNeeded: number; readonly tolerancePercent: Decimal; readonly repriced?: Decimal }
  | { readonly kind: 'reorg'; readonly depositIds: readonly string[] }
  | { readonly kind: 'sweep_started' }
  | { readonly kind: 'sweep_completed'; readonly txHash: string; readonly usdRate: Decimal | null }
  | { readonly kind: 'sweep_failed' }
  | { readonly kind: 'expire' }
  | { readonly kind: 'cancel' };

export interface PaymentEvent {
  readonly type: string;
  /** Natural id suffix so a replayed change writes the same event id. */
  readonly key: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

export interface Transition {
  readonly payment: PaymentState;
  readonly events: readonly PaymentEvent[];
  /** True when the deposits settled: the caller credits the merchant in the same transaction. */
  readonly settle: boolean;
}

export class PaymentTransitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentTransitionError';
  }
}

/** Webhook family event of a status (DESIGN section 7). */
export function familyEvent(status: PaymentStatus): string | null {
  switch (status) {
    case 'waiting':
      return 'payment.created';
    case 'confirming':
    case 'confirmed':
    case 'sending':
      return 'payment.processing';
    case 'completed':
      return 'payment.completed';
    case 'failed':
      return 'payment.failed';
    case 'expired':
      return 'payment.expired';
    default:
      return null;
  }
}

export function historyOf(p: Pick<PaymentState, 'deposits'>): Record<string, unknown>[] {
  return p.deposits.map((d) => ({
    deposit_id: d.id,
    amount: d.amount,
    transaction_hash: d.txHash,
    confirmations: d.confirmations,
    timestamp: d.detectedAt,
  }));
}

export function confirmationsOf(p: Pick<PaymentState, 'deposits'>): number {
  const seen = p.deposits.filter(counts).map((d) => d.confirmations);
  return seen.length > 0 ? Math.min(...seen) : 0;
}

/** The `payment_status_update` data of spec 6.1. */
export function statusUpdatePayload(p: PaymentState, previous: PaymentStatus): Record<string, unknown> {
  return {
    transaction_id: p.id,
    status: p.status,
    previous_status: previous,
    payment_type: paymentTypeOf(p),
    order_id: p.orderId,
    price_amount: p.priceAmount,
    price_currency: p.priceCurrency,
    pay_amount: p.amountCrypto,
    pay_currency: p.currency,
    blockchain_address: p.address,
    transaction_hash: p.transactionHash,
    confirmations: confirmationsOf(p),
    merchant_received_usd: p.merchantReceivedUsd,
    payment_history: historyOf(p),
    flags: [...p.flags],
    metadata: { updated_at: p.updatedAt },
  };
}

/** `full`, `partial` or `over` once something arrived; null before. */
export function paymentTypeOf(p: PaymentState): string | null {
  if (p.flags.includes('overpaid')) return 'over';
  if (p.flags.includes('underpaid') && p.status === 'partially_paid') return 'partial';
  return p.deposits.some(counts) ? 'full' : null;
}

function withStatus(p: PaymentState, status: PaymentStatus, now: Date, events: PaymentEvent[], extra: Partial<PaymentState> = {}): PaymentState {
  const next: PaymentState = { ...p, ...extra, status, updatedAt: now.toISOString() };
  if (status !== p.status) {
    const n = p.version + 1;
    events.push({ type: 'payment_status_update', key: `status:${n}:${status}`, payload: statusUpdatePayload(next, p.status) });
    const family = familyEvent(status);
    if (family) events.push({ type: family, key: `${family}:${n}`, payload: statusUpdatePayload(next, p.status) });
  }
  return next;
}

const addFlag = (flags: readonly PaymentFlag[], flag: PaymentFlag): PaymentFlag[] => (flags.includes(flag) ? [...flags] : [...flags, flag]);

/** The pure transition: a payment and a fact in, the new payment and its events out. Never writes. */
export function transition(p: PaymentState, fact: PaymentFact, now: Date): Transition {
  const events: PaymentEvent[] = [];
  switch (fact.kind) {
    case 'deposit': {
      const d = fact.deposit;
      if (p.deposits.some((x) => x.id === d.id)) return { payment: p, events, settle: false };
      const deposits = [...p.deposits, d];
      events.push({
        type: 'deposit_received',
        key: `deposit:${d.id}`,
        payload: {
          transaction_id: p.id,
          deposit_id: d.id,
          amount: d.amount,
          currency: d.currency,
          transaction_hash: d.txHash,
          confirmations: d.confirmations,
          blockchain_network: p.network,
          token: p.token,
          timestamp: d.detectedAt,
          late: d.late,
          wrong_currency: d.status === 'wrong_currency',
        },
      });
      if (d.status === 'uncredited') {
        return { payment: { ...p, deposits, flags: addFlag(p.flags, 'paid_late'), updatedAt: now.toISOString() }, events, settle: false };
      }
      if (d.status === 'wrong_currency') {
        return { payment: { ...p, deposits, flags: addFlag(p.flags, 'wrong_token'), updatedAt: now.toISOString() }, events, settle: false };
      }
      if (!acceptsDeposits(p.status)) {
        // Arrived after the payment settled: recorded (overpayment of a completed payment is an operator matter).
        const flag: PaymentFlag = p.status === 'cancelled' ? 'paid_late' : 'overpaid';
        return { payment: { ...p, deposits, flags: addFlag(p.flags, flag), updatedAt: now.toISOString() }, events, settle: false };
      }
      const flags = d.late ? addFlag(p.flags, 'paid_late') : [...p.flags];
      const payment = withStatus(p, 'confirming', now, events, { deposits, flags, transactionHash: p.transactionHash ?? d.txHash });
      return { payment, events, settle: false };
    }
    case 'confirmations': {
      const deposits = p.deposits.map((d) => {
        const c = fact.byDeposit[d.id];
        if (c === undefined) return d;
        const status: DepositStatus = !counts(d) ? d.status : c >= fact.confirmationsNeeded ? 'confirmed' : 'pending';
        return { ...d, confirmations: c, status };
      });
      const next = { ...p, deposits };
      if (p.status !== 'confirming') return { payment: next, events, settle: false };
      const counted = deposits.filter(counts);
      if (counted.length === 0 || counted.some((d) => d.status !== 'confirmed')) return { payment: next, events, settle: false };
      const got = received(next, 'confirmed');
      if (lt(got, requiredAmount(p, fact.tolerancePercent, fact.repriced))) {
        return { payment: withStatus(next, 'partially_paid', now, events, { flags: addFlag(p.flags, 'underpaid') }), events, settle: false };
      }
      let flags: PaymentFlag[] = p.flags.filter((f) => f !== 'underpaid');
      if (lt(p.amountCrypto, got)) flags = addFlag(flags, 'overpaid');
      return { payment: withStatus(next, 'confirmed', now, events, { flags }), events, settle: false };
    }
    case 'reorg': {
      const gone = new Set(fact.depositIds);
      const deposits = p.deposits.filter((d) => !gone.has(d.id));
      if (deposits.length === p.deposits.length) return { payment: p, events, settle: false };
      if (p.status === 'sending' || isTerminal(p.status)) throw new PaymentTransitionError(`A settled payment (${p.status}) lost a deposit to a reorg`);
      const counted = deposits.filter(counts);
      const expired = Date.parse(p.expiryTime) <= now.getTime();
      const status: PaymentStatus = counted.length === 0 ? (expired ? 'expired' : 'waiting') : 'confirming';
      const payment = withStatus(p, status, now, events, { deposits, transactionHash: counted[0]?.txHash ?? null, flags: p.flags.filter((f) => f !== 'overpaid') });
      return { payment, events, settle: false };
    }
    case 'sweep_started':
      if (p.status !== 'confirmed') throw new PaymentTransitionError(`Cannot sweep a ${p.status} payment`);
      return { payment: withStatus(p, 'sending', now, events), events, settle: false };
    case 'sweep_completed': {
      if (p.status !== 'sending') throw new PaymentTransitionError(`Cannot complete a ${p.status} payment`);
      const got = received(p, 'confirmed');
      const { net } = merchantCredit(p, got);
      const usd = fact.usdRate ? toFixed(mul(net, fact.usdRate), FIAT_PRECISION, 'down') : null;
      const deposits = p.deposits.filter((d) => d.status === 'confirmed');
      for (const d of deposits) {
        events.push({ type: 'deposit_merged', key: `merged:${d.id}`, payload: { transaction_id: p.id, deposit_id: d.id, amount: d.amount, currency: d.currency, sweep_transaction_hash: fact.txHash, blockchain_network: p.network } });
      }
      const payment = withStatus(p, 'completed', now, events, { sweepTxHash: fact.txHash, merchantReceived: net, merchantReceivedUsd: usd });
      return { payment, events, settle: true };
    }
    case 'sweep_failed':
      if (p.status !== 'sending') throw new PaymentTransitionError(`Cannot fail the sweep of a ${p.status} payment`);
      return { payment: withStatus(p, 'confirmed', now, events), events, settle: false };
    case 'expire':
      if (p.status !== 'waiting') throw new PaymentTransitionError(`Cannot expire a ${p.status} payment`);
      return { payment: withStatus(p, 'expired', now, events), events, settle: false };
    case 'cancel':
      if (!isCancellable(p)) throw new PaymentTransitionError(`Cannot cancel a ${p.status} payment with ${p.deposits.length} deposit(s)`);
      return { payment: withStatus(p, 'cancelled', now, events), events, settle: false };
  }
}

/** True when a deposit detected at `at` is late (after expiry) but within the watch window. */
export function lateness(p: Pick<PaymentState, 'expiryTime' | 'status'>, at: Date, watchHours = LATE_WATCH_HOURS): 'on_time' | 'late' | 'too_late' {
  const expiry = Date.parse(p.expiryTime);
  if (at.getTime() < expiry && p.status !== 'expired') return 'on_time';
  return at.getTime() <= expiry + watchHours * 3600_000 ? 'late' : 'too_late';
}

/** Sortable text of a non-negative USD amount (gsi2 amount ordering): 18 integer digits, 2 decimals. */
export function amountSortKey(amountUsd: Decimal): string {
  const [int, frac = ''] = toFixed(amountUsd, 2, 'half-up').split('.');
  return `${(int ?? '0').padStart(18, '0')}.${frac.padEnd(2, '0')}`;
}
