import type { CurrencyCode } from './currencies.js';
import { findCurrency } from './currencies.js';
import { ConflictError } from './errors.js';
import type { EventType } from './events.js';
import { EVENTS, PAYMENT_STATUS_EVENTS } from './events.js';
import type { EntryDraft, Leg } from './ledger.js';
import { EXTERNAL, FEES, MAIN, pocket, walletAccount } from './ledger.js';
import type { Decimal } from './money.js';
import { fromBaseUnits, isPositive, lt, mul, percentOf, sub, toFixed } from './money.js';
import { FIAT_PRECISION } from './rates.js';

/**
 * Payments, pure: statuses and their guards, the amount a customer must pay, the creation of a payment, and
 * the transition function that turns a payment plus a fact (a deposit, its confirmations, a reorg, the
 * sweep, the clock, the merchant's cancel or edit) into the new payment, the events it announces and the
 * effects committed with it (record or forget a deposit, credit the merchant). Saving happens after, in the
 * repository, in ONE transaction; the repository alone conditions on and bumps the version.
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

export const PAYMENT_STATUSES = ['waiting', 'confirming', 'confirmed', 'sending', 'completed', 'expired', 'failed', 'cancelled', 'partially_paid'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses the list filter accepts (spec 4.3, plus the two DESIGN section 10 adds). */
export const LIST_FILTER_STATUSES = ['waiting', 'confirming', 'completed', 'expired', 'failed', 'cancelled', 'partially_paid'] as const;

export const PAYMENT_FLAGS = ['underpaid', 'overpaid', 'paid_late', 'wrong_token', 'payment_link_over_limit'] as const;
export type PaymentFlag = (typeof PAYMENT_FLAGS)[number];

/** Terminal: nothing moves it any more (an expired payment can still be paid late, see `acceptsDeposits`). */
export const isTerminal = (s: PaymentStatus): boolean => s === 'completed' || s === 'failed' || s === 'cancelled';
/** The merchant may cancel only while waiting and nothing arrived. */
export const isCancellable = (p: Pick<PaymentState, 'status' | 'deposits'>): boolean => p.status === 'waiting' && p.deposits.length === 0;
/** Statuses in which a matching deposit counts towards the payment. */
export const acceptsDeposits = (s: PaymentStatus): boolean => s === 'waiting' || s === 'confirming' || s === 'partially_paid' || s === 'expired';
/** Order, editable fields may change until the payment is settled. */
export const isEditable = (s: PaymentStatus): boolean => !isTerminal(s) && s !== 'sending';
/** Waiting for its deposit: nothing arrived yet (it expires when its time runs out). */
export const awaitsDeposit = (p: Pick<PaymentState, 'status'>): boolean => p.status === 'waiting';
/** Counting its deposits' confirmations: confirming, or partially paid (the rest may still arrive). */
export const countsConfirmations = (p: Pick<PaymentState, 'status'>): boolean => p.status === 'confirming' || p.status === 'partially_paid';
/** Paid in part: it still takes deposits of its currency towards the amount. */
export const isPartiallyPaid = (p: Pick<PaymentState, 'status'>): boolean => p.status === 'partially_paid';
/** Paid and confirmed: its deposit is due to be swept into the treasury. */
export const isSweepDue = (p: Pick<PaymentState, 'status'>): boolean => p.status === 'confirmed';
/** Its deposit is being swept (the payment completes when the sweep is mined). */
export const isSweeping = (p: Pick<PaymentState, 'status'>): boolean => p.status === 'sending';

/** Default hours after expiry during which a deposit is still recorded and credited (paid late). */
export const LATE_WATCH_HOURS = 24;

/** `wrong_currency`: another token reached the address; `uncredited`: arrived after the watch window. Neither counts. */
export type DepositStatus = 'pending' | 'confirmed' | 'wrong_currency' | 'uncredited';

/** A deposit that counts towards its payment. */
export const counts = (d: Pick<Deposit, 'status'>): boolean => d.status !== 'wrong_currency' && d.status !== 'uncredited';
/** A deposit with all the confirmations its currency needs. */
export const isConfirmedDeposit = (d: Pick<Deposit, 'status'>): boolean => d.status === 'confirmed';

/**
 * The block number of a deposit seen in a UTXO network's mempool, not yet in a block (`isMined`): 0 confirmations
 * whatever the head, never confirmed, dropped when its transaction leaves the mempool without a block.
 */
export const UNMINED_BLOCK = -1;
export const isMined = (d: Pick<Deposit, 'blockNumber'>): boolean => d.blockNumber >= 0;

export interface Deposit {
  /** `<network>:<tx hash>:<log index>` (or `:native:<n>` for a balance-check deposit; a UTXO output's index). */
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
  /** Seen unconfirmed in a transaction that signals replaceability (BIP125): it may yet be replaced. */
  readonly replaceable?: boolean;
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
  /** The hosted checkout page's name for the payment (128 random bits, base64url; never the transaction id). */
  readonly checkoutId: string;
  /** Where the checkout page sends the customer once paid, or when leaving unpaid. */
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  readonly expiryTime: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly transactionHash: string | null;
  readonly deposits: readonly Deposit[];
  readonly flags: readonly PaymentFlag[];
  readonly merchantReceived: Decimal | null;
  readonly merchantReceivedUsd: Decimal | null;
  readonly sweepTxHash: string | null;
  /**
   * The batched sweep that last took the payment (`sweep:<uuid>`, its chain-tx request's reference, whose items name
   * the payments it carries): set when it goes to `sending`, kept when that sweep fails (the payment is then swept
   * alone). Absent on a payment never swept in a batch (a single sweep's reference is `payment:<tenant>:<id>`).
   */
  readonly sweepReference?: string;
  /** The payment link whose visit opened it (shared/domain/payment-links.ts); absent otherwise. */
  readonly paymentLinkId?: string;
  /** Issue 30: the subscription whose period (cycle, from 0) this payment bills; absent on every other payment. */
  readonly subscription?: { readonly id: string; readonly cycle: number };
  /** Optimistic lock: every save conditions on it and increments it. */
  readonly version: number;
}

/* ---------------------------------------------------------------- amounts */

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
  | {
      readonly kind: 'confirmations';
      readonly byDeposit: Readonly<Record<string, number>>;
      readonly confirmationsNeeded: number;
      readonly tolerancePercent: Decimal;
      readonly repriced?: Decimal;
    }
  | { readonly kind: 'reorg'; readonly depositIds: readonly string[] }
  /** A deposit seen in the mempool is in a block now: the same deposit, updated in place (never recorded twice). */
  | { readonly kind: 'deposit_mined'; readonly depositId: string; readonly blockNumber: number; readonly blockHash: string }
  /** `reference`: the batched sweep that takes the payment (recorded as its `sweepReference`). */
  | { readonly kind: 'sweep_started'; readonly reference?: string }
  | {
      readonly kind: 'sweep_completed';
      readonly txHash: string;
      readonly usdRate: Decimal | null;
      /** The payment's wallet was deleted before its credit: the merchant's main balance takes it. */
      readonly walletGone?: boolean;
      /** Of the credit, held at once for a refund opened with it (an overpayment's excess given back automatically). */
      readonly refundHold?: Decimal;
      /** Of a payment link whose limit was reached meanwhile: completed and credited all the same, flagged. */
      readonly linkOverLimit?: boolean;
    }
  /**
   * A payment left partially paid past its expiry is settled by its first refund: failed, its confirmed deposits
   * credited (less the platform fee, as a completion credits) with `refundHold` of it held at once for that refund.
   */
  | { readonly kind: 'settle_for_refund'; readonly refundHold: Decimal; readonly usdRate: Decimal | null }
  | { readonly kind: 'sweep_failed' }
  | { readonly kind: 'expire' }
  | { readonly kind: 'cancel' }
  | { readonly kind: 'edit'; readonly changes: PaymentEdit };

/** What the merchant may change while the payment is open (`PATCH /payments/{id}/`); `null` clears a field. */
export interface PaymentEdit {
  readonly orderId?: string | null;
  readonly orderDescription?: string | null;
  readonly callbackUrl?: string | null;
}

export interface PaymentEvent {
  readonly type: EventType;
  /** Natural id suffix so a replayed change writes the same event id. */
  readonly key: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

export type PaymentEffect =
  /** Record the deposit once (its id is natural): a second record of the same deposit refuses the change. */
  | { readonly kind: 'record_deposit'; readonly deposit: Deposit }
  /** Forget deposits whose block was reorganised away, so their re-mined logs are recorded again. */
  | { readonly kind: 'forget_deposits'; readonly depositIds: readonly string[] }
  /** Credit the merchant: post this ledger entry with the change (its id makes it happen once). */
  | { readonly kind: 'post_entry'; readonly entryId: string; readonly entry: EntryDraft };

/** The deposit was recorded before (another pass, a rescanned range): the change that carried it is void. */
export class DepositAlreadyRecordedError extends ConflictError {
  constructor(depositId: string) {
    super(`The deposit ${depositId} is already recorded.`, { deposit_id: depositId });
    this.name = 'DepositAlreadyRecordedError';
  }
}

export interface PaymentChange {
  readonly state: PaymentState;
  readonly events: readonly PaymentEvent[];
  readonly effects: readonly PaymentEffect[];
}

/**
 * Webhook family event of a status (DESIGN section 7, spec 6.2), from the catalogue's PAYMENT_STATUS_EVENTS.
 * A cancelled payment is announced as `payment.failed` (its data says `status: "cancelled"`): 6.2 has no
 * `payment.cancelled`, and a cancelled payment, like a failed one, will never complete.
 */
export function familyEvent(status: PaymentStatus): EventType | null {
  return PAYMENT_STATUS_EVENTS[status];
}

/** One element of `payment_history` (spec 2.1). */
export interface PaymentHistoryItem {
  readonly deposit_id: string;
  readonly amount: Decimal;
  readonly transaction_hash: string;
  readonly confirmations: number;
  readonly timestamp: string;
}

export function historyOf(p: Pick<PaymentState, 'deposits'>): PaymentHistoryItem[] {
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
/** `previous` is null for `payment.created`. */
export function statusUpdatePayload(p: PaymentState, previous: PaymentStatus | null): Record<string, unknown> {
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
    ...(p.paymentLinkId === undefined ? {} : { payment_link_id: p.paymentLinkId }),
    ...(p.subscription === undefined ? {} : { subscription_id: p.subscription.id, subscription_cycle: p.subscription.cycle }),
  };
}

/** The `deposit.received` data: one deposit as it was recorded. */
export function depositReceivedPayload(p: Pick<PaymentState, 'id' | 'network' | 'token'>, d: Deposit): Record<string, unknown> {
  return {
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
    ...(d.replaceable === undefined ? {} : { replaceable: d.replaceable }),
  };
}

/** The `deposit.merged` data: a confirmed deposit swept to the treasury by `sweepTxHash`. */
export function depositMergedPayload(p: Pick<PaymentState, 'id' | 'network'>, d: Deposit, sweepTxHash: string): Record<string, unknown> {
  return {
    transaction_id: p.id,
    deposit_id: d.id,
    amount: d.amount,
    currency: d.currency,
    sweep_transaction_hash: sweepTxHash,
    blockchain_network: p.network,
  };
}

/** `full`, `partial` or `over` once something arrived; null before. */
export function paymentTypeOf(p: PaymentState): string | null {
  if (p.flags.includes('overpaid')) return 'over';
  if (p.flags.includes('underpaid') && p.status === 'partially_paid') return 'partial';
  return p.deposits.some(counts) ? 'full' : null;
}

/** The status change, with its events keyed by the version the change will be saved as. */
function withStatus(p: PaymentState, status: PaymentStatus, now: Date, events: PaymentEvent[], extra: Partial<PaymentState> = {}): PaymentState {
  const next: PaymentState = { ...p, ...extra, status, updatedAt: now.toISOString() };
  if (status !== p.status) {
    const n = p.version + 1;
    events.push({ type: EVENTS.paymentStatusUpdate, key: `status:${n}:${status}`, payload: statusUpdatePayload(next, p.status) });
    const family = familyEvent(status);
    if (family) events.push({ type: family, key: `${family}:${n}`, payload: statusUpdatePayload(next, p.status) });
  }
  return next;
}

const addFlag = (flags: readonly PaymentFlag[], flag: PaymentFlag): PaymentFlag[] => (flags.includes(flag) ? [...flags] : [...flags, flag]);

/** Work queue of a payment (gsi3): waiting ones by expiry per network and asset, open ones per network. */
export type PaymentQueue =
  { readonly kind: 'waiting'; readonly network: string; readonly asset: 'native' | 'token' } | { readonly kind: 'open'; readonly network: string } | null;

export function workQueueOf(p: Pick<PaymentState, 'status' | 'network' | 'currency'>): PaymentQueue {
  if (p.status === 'waiting') return { kind: 'waiting', network: p.network, asset: findCurrency(p.currency)?.native ? 'native' : 'token' };
  if (p.status === 'confirming' || p.status === 'confirmed' || p.status === 'sending' || p.status === 'partially_paid')
    return { kind: 'open', network: p.network };
  return null;
}

export type PaymentDraft = Omit<
  PaymentState,
  'status' | 'createdAt' | 'updatedAt' | 'transactionHash' | 'deposits' | 'flags' | 'merchantReceived' | 'merchantReceivedUsd' | 'sweepTxHash' | 'version'
>;

/** A new payment: waiting for its deposit, announced by `payment.created`. Version 0 until stored. */
export function openPayment(draft: PaymentDraft, now: Date): PaymentChange {
  const at = now.toISOString();
  const state: PaymentState = {
    ...draft,
    status: 'waiting',
    createdAt: at,
    updatedAt: at,
    transactionHash: null,
    deposits: [],
    flags: [],
    merchantReceived: null,
    merchantReceivedUsd: null,
    sweepTxHash: null,
    version: 0,
  };
  return { state, events: [{ type: EVENTS.paymentCreated, key: 'created', payload: statusUpdatePayload(state, null) }], effects: [] };
}

/**
 * The merchant's credit of a settled payment: everything received less the fee, to main or its wallet (to main
 * when that wallet was deleted meanwhile, noted in the entry's metadata: money is never left without an owner).
 */
/**
 * The merchant's credit for the confirmed deposits: what they brought less the platform fee, to the payment's wallet
 * (main when it was deleted), `hold` of it straight to the balance's locked part (a refund opened with the credit).
 */
function creditEntry(p: PaymentState, metadata: Record<string, string>, walletGone: boolean, hold = '0'): PaymentEffect[] {
  const { net, fee } = merchantCredit(p, received(p, 'confirmed'));
  if (lt(net, hold) || lt(hold, '0')) throw new RangeError(`a refund hold of ${hold} outside the credit of ${net}`);
  const account = p.walletId && !walletGone ? walletAccount(p.walletId) : MAIN;
  const legs: Leg[] = [];
  if (lt(hold, net)) legs.push({ from: pocket(EXTERNAL), to: pocket(account), amount: sub(net, hold) });
  if (isPositive(hold)) legs.push({ from: pocket(EXTERNAL), to: pocket(account, 'locked'), amount: hold });
  if (isPositive(fee)) legs.push({ from: pocket(EXTERNAL), to: pocket(FEES), amount: fee });
  if (legs.length === 0) return [];
  const entry: EntryDraft = {
    type: 'payment',
    currency: p.currency as CurrencyCode,
    legs,
    reference: { kind: 'payment', id: p.id },
    metadata: {
      ...metadata,
      ...(p.transactionHash ? { deposit_tx: p.transactionHash } : {}),
      ...(p.walletId && walletGone ? { deleted_wallet_id: p.walletId } : {}),
    },
  };
  return [{ kind: 'post_entry', entryId: `payment:${p.id}`, entry }];
}

/** The credit's USD value at `usdRate`, where one is known. */
const usdOf = (net: Decimal, usdRate: Decimal | null): Decimal | null => (usdRate ? toFixed(mul(net, usdRate), FIAT_PRECISION, 'down') : null);

function refuse(p: PaymentState, fact: PaymentFact, message: string, details: Record<string, unknown> = {}): never {
  throw new ConflictError(message, { status: p.status, action: fact.kind, ...details });
}

/**
 * The pure transition: a payment and a fact in, the new payment, its events and effects out. A fact the guards
 * do not allow is a ConflictError (409 `invalid_state`). Never writes.
 */
export function transition(p: PaymentState, fact: PaymentFact, now: Date): PaymentChange {
  const events: PaymentEvent[] = [];
  const same = (state: PaymentState, effects: PaymentEffect[] = []): PaymentChange => ({ state, events, effects });
  switch (fact.kind) {
    case 'deposit': {
      const d = fact.deposit;
      if (p.deposits.some((x) => x.id === d.id)) return same(p);
      const deposits = [...p.deposits, d];
      const record: PaymentEffect[] = [{ kind: 'record_deposit', deposit: d }];
      events.push({
        type: EVENTS.depositReceived,
        // Keyed by the version this change is saved as too: a log re-mined after a reorg is announced again.
        key: `deposit:${d.id}:${p.version + 1}`,
        payload: depositReceivedPayload(p, d),
      });
      if (d.status === 'uncredited') return same({ ...p, deposits, flags: addFlag(p.flags, 'paid_late'), updatedAt: now.toISOString() }, record);
      if (d.status === 'wrong_currency') return same({ ...p, deposits, flags: addFlag(p.flags, 'wrong_token'), updatedAt: now.toISOString() }, record);
      if (!acceptsDeposits(p.status)) {
        // Arrived after the payment settled: recorded (overpayment of a completed payment is an operator matter).
        const flag: PaymentFlag = p.status === 'cancelled' ? 'paid_late' : 'overpaid';
        return same({ ...p, deposits, flags: addFlag(p.flags, flag), updatedAt: now.toISOString() }, record);
      }
      const flags = d.late ? addFlag(p.flags, 'paid_late') : [...p.flags];
      return same(withStatus(p, 'confirming', now, events, { deposits, flags, transactionHash: p.transactionHash ?? d.txHash }), record);
    }
    case 'confirmations': {
      const deposits = p.deposits.map((d) => {
        const c = fact.byDeposit[d.id];
        if (c === undefined) return d;
        // A deposit not in a block has no confirmation and is never confirmed, whatever the policy says (a floor of 1).
        const confirmations = isMined(d) ? c : 0;
        const confirmed = isMined(d) && confirmations >= Math.max(1, fact.confirmationsNeeded);
        const status: DepositStatus = !counts(d) ? d.status : confirmed ? 'confirmed' : 'pending';
        return { ...d, confirmations, status };
      });
      const next = { ...p, deposits };
      if (p.status !== 'confirming') return same(next);
      const counted = deposits.filter(counts);
      if (counted.length === 0 || counted.some((d) => d.status !== 'confirmed')) return same(next);
      const got = received(next, 'confirmed');
      if (lt(got, requiredAmount(p, fact.tolerancePercent, fact.repriced))) {
        return same(withStatus(next, 'partially_paid', now, events, { flags: addFlag(p.flags, 'underpaid') }));
      }
      let flags: PaymentFlag[] = p.flags.filter((f) => f !== 'underpaid');
      if (lt(p.amountCrypto, got)) flags = addFlag(flags, 'overpaid');
      return same(withStatus(next, 'confirmed', now, events, { flags }));
    }
    case 'reorg': {
      const gone = new Set(fact.depositIds);
      const deposits = p.deposits.filter((d) => !gone.has(d.id));
      if (deposits.length === p.deposits.length) return same(p);
      if (p.status === 'sending' || isTerminal(p.status)) refuse(p, fact, `A settled payment (${p.status}) lost a deposit to a reorg.`);
      const counted = deposits.filter(counts);
      const expired = Date.parse(p.expiryTime) <= now.getTime();
      const status: PaymentStatus = counted.length === 0 ? (expired ? 'expired' : 'waiting') : 'confirming';
      const state = withStatus(p, status, now, events, {
        deposits,
        transactionHash: counted[0]?.txHash ?? null,
        flags: p.flags.filter((f) => f !== 'overpaid'),
      });
      return same(state, [{ kind: 'forget_deposits', depositIds: p.deposits.filter((d) => gone.has(d.id)).map((d) => d.id) }]);
    }
    case 'deposit_mined': {
      const d = p.deposits.find((x) => x.id === fact.depositId);
      if (!d || (d.blockNumber === fact.blockNumber && d.blockHash === fact.blockHash)) return same(p);
      if (fact.blockNumber < 0) refuse(p, fact, `A deposit cannot be mined in block ${fact.blockNumber}.`);
      const mined = { ...d, blockNumber: fact.blockNumber, blockHash: fact.blockHash };
      return same({ ...p, deposits: p.deposits.map((x) => (x.id === d.id ? mined : x)), updatedAt: now.toISOString() });
    }
    case 'sweep_started':
      if (p.status !== 'confirmed') refuse(p, fact, `Cannot sweep a ${p.status} payment.`);
      return same(withStatus(p, 'sending', now, events, fact.reference === undefined ? {} : { sweepReference: fact.reference }));
    case 'sweep_completed': {
      if (p.status !== 'sending') refuse(p, fact, `Cannot complete a ${p.status} payment.`);
      const { net } = merchantCredit(p, received(p, 'confirmed'));
      for (const d of p.deposits.filter((x) => x.status === 'confirmed')) {
        events.push({
          type: EVENTS.depositMerged,
          key: `merged:${d.id}`,
          payload: depositMergedPayload(p, d, fact.txHash),
        });
      }
      const flags = fact.linkOverLimit ? addFlag(p.flags, 'payment_link_over_limit') : [...p.flags];
      const state = withStatus(p, 'completed', now, events, {
        sweepTxHash: fact.txHash,
        merchantReceived: net,
        merchantReceivedUsd: usdOf(net, fact.usdRate),
        flags,
      });
      return same(state, creditEntry(p, { sweep_tx: fact.txHash }, fact.walletGone === true, fact.refundHold));
    }
    case 'settle_for_refund': {
      if (p.status !== 'partially_paid' || Date.parse(p.expiryTime) > now.getTime()) {
        refuse(p, fact, `Only a payment left partially paid past its expiry is settled by a refund; this one is ${p.status}.`);
      }
      const { net } = merchantCredit(p, received(p, 'confirmed'));
      const state = withStatus(p, 'failed', now, events, { merchantReceived: net, merchantReceivedUsd: usdOf(net, fact.usdRate) });
      return same(state, creditEntry(p, { settled_by: 'refund' }, false, fact.refundHold));
    }
    case 'sweep_failed':
      if (p.status !== 'sending') refuse(p, fact, `Cannot fail the sweep of a ${p.status} payment.`);
      return same(withStatus(p, 'confirmed', now, events));
    case 'expire':
      if (p.status !== 'waiting') refuse(p, fact, `Cannot expire a ${p.status} payment.`);
      return same(withStatus(p, 'expired', now, events));
    case 'cancel': {
      if (!isCancellable(p)) {
        const reason = p.deposits.length > 0 ? 'a deposit was already received' : `it is ${p.status}`;
        refuse(p, fact, `The payment cannot be cancelled: ${reason}. Only a waiting payment with no deposit can be cancelled.`, {
          deposits: p.deposits.length,
        });
      }
      return same(withStatus(p, 'cancelled', now, events));
    }
    case 'edit': {
      if (!isEditable(p.status)) refuse(p, fact, `A ${p.status} payment can no longer be changed.`);
      const c = fact.changes;
      return same({
        ...p,
        ...(c.orderId !== undefined ? { orderId: c.orderId } : {}),
        ...(c.orderDescription !== undefined ? { orderDescription: c.orderDescription } : {}),
        ...(c.callbackUrl !== undefined ? { callbackUrl: c.callbackUrl } : {}),
        updatedAt: now.toISOString(),
      });
    }
  }
}

/**
 * Two transitions saved as ONE change: `fact` applied to the state `change` leads to. The result has the second's
 * state, the events of both in order and the effects of both (a guard of the second refuses as `transition` does).
 * Both are keyed by the version the one save stores: an event key of the second that the first already uses (the
 * family event of two statuses of one family: `payment.processing` of confirmed, then of sending) gets the fact's
 * kind appended, so every event keeps an id of its own.
 */
export function andThen(change: PaymentChange, fact: PaymentFact, now: Date): PaymentChange {
  const next = transition(change.state, fact, now);
  const used = new Set(change.events.map((e) => e.key));
  return {
    state: next.state,
    events: [...change.events, ...next.events.map((e) => (used.has(e.key) ? { ...e, key: `${e.key}:${fact.kind}` } : e))],
    effects: [...change.effects, ...next.effects],
  };
}

/** True when a deposit detected at `at` is late (after expiry) but within the watch window. */
export function lateness(p: Pick<PaymentState, 'expiryTime' | 'status'>, at: Date, watchHours = LATE_WATCH_HOURS): 'on_time' | 'late' | 'too_late' {
  const expiry = Date.parse(p.expiryTime);
  if (at.getTime() < expiry && p.status !== 'expired') return 'on_time';
  return at.getTime() <= expiry + watchHours * 3600_000 ? 'late' : 'too_late';
}
