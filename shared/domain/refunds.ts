import type { CurrencyCode } from './currencies.js';
import { ConflictError, GatewayError, ValidationError } from './errors.js';
import { EVENTS, refundFamilyEvent } from './events.js';
import type { EventType } from './events.js';
import type { CustomerAccount, EntryDraft, EntryReference } from './ledger.js';
import { holdEntry, MAIN, releaseEntry, walletAccount } from './ledger.js';
import type { Decimal } from './money.js';
import { add, isPositive, lt, lte, min, sub } from './money.js';
import type { PaymentState } from './payments.js';
import { merchantCredit, received } from './payments.js';

/**
 * Refunds, pure (DESIGN section 12, issue 27): what of a payment may be given back, the refund's states and the
 * transition that turns a refund plus a fact (an address entered, handed to the chain, paid, failed, cancelled, its
 * claim expired) into the new refund, the events it announces and the ledger entry committed with it in ONE
 * transaction. The repository alone conditions on and bumps the version.
 *
 * ```
 * (none) --open(address)--> pending --dispatched--> processing --paid--> completed
 * (none) --open-----------> awaiting_address --address_set--> pending        \--failed--> failed
 *                              |  \--expire--> expired (claim unused by its deadline)
 *                              \--cancel--> cancelled (also from pending)
 * ```
 *
 * Money: opening holds the whole refund amount on the account the payment credited (`amount` -> `locked`, never
 * below zero). Once it has an address it is paid by a withdrawal of its own (`openRefundPayout` in withdrawals.ts,
 * written in the transaction that makes the refund pending), which takes the hold over: the withdrawal's payout
 * spends it (what was sent leaves the ledger, the network fee goes to the platform's network-fee account) and its
 * failure or cancel releases it, so the refund's own payout facts post no entry. A refund without a withdrawal
 * (awaiting its address) releases its hold itself when cancelled or expired.
 */

export const REFUND_STATUSES = ['awaiting_address', 'pending', 'processing', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** How long a claim link stays usable by default. */
export const CLAIM_HOURS = 72;

export interface RefundState {
  readonly id: string;
  readonly tenantId: string;
  readonly paymentId: string;
  readonly status: RefundStatus;
  readonly currency: CurrencyCode;
  readonly network: string;
  /** What the merchant gives back (held at acceptance, charged at completion), in the payment's currency. */
  readonly amount: Decimal;
  /** The estimated network fee until completion, then what the chain took. */
  readonly networkFee: Decimal;
  /** What the customer receives (`amount - networkFee`); set at completion, null before. */
  readonly amountSent: Decimal | null;
  readonly address: string | null;
  readonly memo: string | null;
  readonly reason: string | null;
  /** The claim page's token (128 random bits, base64url) while the customer has to enter the address; else null. */
  readonly claimToken: string | null;
  readonly claimExpiresAt: string | null;
  /** The origin its claim link is given on (the deployment's public base URL, or the host the merchant called). */
  readonly claimOrigin: string | null;
  /** The customer account the payment credited and the refund is held on. */
  readonly account: CustomerAccount;
  /** The payment's callback URL, where variant-A events also go. */
  readonly callbackUrl: string | null;
  /** The withdrawal that pays it, once one does. */
  readonly withdrawalId: string | null;
  readonly transactionHash: string | null;
  readonly failureReason: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
}

/* ---------------------------------------------------------------- guards */

export const isFinalRefund = (r: Pick<RefundState, 'status'>): boolean =>
  r.status === 'completed' || r.status === 'failed' || r.status === 'cancelled' || r.status === 'expired';
/** The merchant may cancel until the refund is handed to the chain. */
export const canCancelRefund = (r: Pick<RefundState, 'status'>): boolean => r.status === 'awaiting_address' || r.status === 'pending';
export const awaitsAddress = (r: Pick<RefundState, 'status'>): boolean => r.status === 'awaiting_address';
/** Its claim was not used by its deadline. */
export const claimExpired = (r: Pick<RefundState, 'status' | 'claimExpiresAt'>, now: Date): boolean =>
  awaitsAddress(r) && r.claimExpiresAt !== null && Date.parse(r.claimExpiresAt) <= now.getTime();
/** Ended with its hold released (the payment's refunded total no longer counts it). */
export const releasedHold = (r: Pick<RefundState, 'status'>): boolean => r.status === 'failed' || r.status === 'cancelled' || r.status === 'expired';

/* ---------------------------------------------------------------- what is refundable */

/** The customer account a payment's credit went to (its wallet's, else main). */
export const refundAccount = (p: Pick<PaymentState, 'walletId'>): CustomerAccount => (p.walletId ? walletAccount(p.walletId) : MAIN);

export interface Refundable {
  /** What the merchant was (or, settling, is) credited for the payment: the most its refunds may add up to. */
  readonly base: Decimal;
  readonly received: Decimal;
  readonly refunded: Decimal;
  /** `base - refunded`, never below zero. */
  readonly refundable: Decimal;
  /** What a refund without an amount gives back: the excess of an overpaid payment, else all that is refundable. */
  readonly suggested: Decimal;
  /**
   * The payment was left partially paid past its expiry and never credited: the first refund settles it (the payment
   * fails, its deposits are credited with the refund's amount held, in the refund's transaction).
   */
  readonly settles: boolean;
  /** Why nothing is refundable, where nothing is. */
  readonly why: string | null;
}

/** A payment left partially paid past its expiry: nothing more will complete it, its deposits can be given back. */
export const settlesByRefund = (p: Pick<PaymentState, 'status' | 'expiryTime'>, now: Date): boolean =>
  p.status === 'partially_paid' && Date.parse(p.expiryTime) <= now.getTime();

/**
 * What of a payment the merchant can give back at `now`, after `refundedSoFar` (its refunds not released). The base
 * is what the merchant is credited for it (`merchantReceived`, the received amount less the platform fee): a
 * completed payment's, or a failed one's that a refund settled; a payment left partially paid past its expiry is
 * credited its confirmed deposits by its first refund. Nothing else is the merchant's to give back from its balance:
 * a payment still open may yet complete, and deposits after the watch window (`uncredited`), of another token
 * (`wrong_currency`) or after the payment settled are operator matters. A completed payment's late deposits were
 * credited and count.
 */
export function refundable(p: PaymentState, refundedSoFar: Decimal, now: Date): Refundable {
  const got = received(p);
  const settles = settlesByRefund(p, now) && p.merchantReceived === null;
  const credited = settles
    ? merchantCredit(p, received(p, 'confirmed')).net
    : (p.status === 'completed' || p.status === 'failed') && p.merchantReceived !== null
      ? p.merchantReceived
      : '0';
  const left = lt(refundedSoFar, credited) ? sub(credited, refundedSoFar) : '0';
  const excess = p.status === 'completed' && p.flags.includes('overpaid') ? sub(received(p, 'confirmed'), p.amountCrypto) : null;
  const suggested = excess !== null && isPositive(excess) ? min(excess, left) : left;
  const why = !isPositive(credited)
    ? p.status === 'partially_paid'
      ? `A partially paid payment can be refunded once it has expired (at ${p.expiryTime}); until then it may still be paid in full.`
      : `A ${p.status} payment was not credited to the merchant; only a completed payment, or one left partially paid past its expiry, can be refunded.`
    : !isPositive(left)
      ? `The payment's credit of ${credited} ${p.currency} is already refunded in full.`
      : null;
  return { base: credited, received: got, refunded: refundedSoFar, refundable: left, suggested, settles, why };
}

/** Refuses an amount above what is refundable (the store's condition holds the same line under concurrency). */
export function requireRefundable(amount: Decimal, r: Refundable, currency: string): void {
  if (r.why !== null && !isPositive(r.refundable)) throw new ConflictError(r.why, { refundable: r.refundable, currency });
  if (!lte(amount, r.refundable)) throw overRefundable(amount, r.refundable, currency);
}

/** 400 `invalid_request` on `amount`: more than is left to refund (`refundable`, when known). */
export function overRefundable(amount: Decimal, left: Decimal | null, currency: string): GatewayError {
  const message =
    left === null
      ? `The amount ${amount} ${currency} is more than is left to refund of the payment.`
      : `The amount ${amount} ${currency} is more than the ${left} ${currency} refundable.`;
  return new GatewayError('invalid_request', message, { amount: [message], ...(left === null ? {} : { refundable: left }), currency });
}

/* ---------------------------------------------------------------- events and effects */

export interface RefundEvent {
  readonly type: EventType;
  /** Natural key within the refund (its outbox id is `refund:<id>:<key>`). */
  readonly key: string;
  readonly payload: Record<string, unknown>;
}

export type RefundEffect =
  /** Post this ledger entry in the same transaction as the change (its id makes it happen once). */
  | { readonly kind: 'post_entry'; readonly entryId: string; readonly entry: EntryDraft }
  /** The payment's refunded total takes the refund back (its hold was released). */
  | { readonly kind: 'unrefund'; readonly amount: Decimal };

export interface RefundChange {
  readonly state: RefundState;
  readonly events: readonly RefundEvent[];
  readonly effects: readonly RefundEffect[];
}

/** The claim page of a refund on `origin`. */
export const claimUrl = (origin: string, token: string): string => `${origin.replace(/\/$/, '')}/refund-claims/${token}`;

/** The refund as webhooks show it (`claim_url`: the claim page while it awaits an address). */
export function refundPayload(r: RefundState, previous: RefundStatus | null): Record<string, unknown> {
  return {
    refund_id: r.id,
    payment_id: r.paymentId,
    status: r.status,
    previous_status: previous,
    currency: r.currency,
    amount: r.amount,
    network_fee: r.networkFee,
    amount_sent: r.amountSent,
    address: r.address,
    claim_url: awaitsAddress(r) && r.claimToken !== null && r.claimOrigin ? claimUrl(r.claimOrigin, r.claimToken) : null,
    claim_expires_at: r.claimExpiresAt,
    transaction_hash: r.transactionHash,
    reason: r.reason,
    metadata: { updated_at: r.updatedAt },
  };
}

/** A status change's events: `refund_status_update` (variant A) and the `refund.*` family event (variant B). */
function statusEvents(next: RefundState, previous: RefundStatus | null): RefundEvent[] {
  const payload = refundPayload(next, previous);
  const family = previous === null ? EVENTS.refundCreated : refundFamilyEvent(next.status);
  return [{ type: EVENTS.refundStatusUpdate, key: `status:${next.status}`, payload }, ...(family ? [{ type: family, key: family, payload }] : [])];
}

const reference = (r: Pick<RefundState, 'id'>): EntryReference => ({ kind: 'refund', id: r.id });

export type RefundDraft = Pick<
  RefundState,
  'id' | 'tenantId' | 'paymentId' | 'currency' | 'network' | 'amount' | 'networkFee' | 'address' | 'memo' | 'reason' | 'account' | 'callbackUrl'
> & {
  /** Required without an address: the claim page's token. */
  readonly claimToken: string | null;
  /** Without an address: the origin of its claim link (null: none known, the webhooks then carry no claim_url). */
  readonly claimOrigin?: string | null;
  /** With an address: the withdrawal that pays it, written with it. */
  readonly withdrawalId?: string | null;
  /** The payment's credit, committed with the refund, holds its amount (so the refund posts no hold of its own). */
  readonly heldInCredit?: boolean;
};

/** A draft of a refund of `p`: its tenant, currency and network, the account its credit went to, its callback URL. */
export const refundDraftOf = (
  p: PaymentState,
  fields: Omit<RefundDraft, 'tenantId' | 'paymentId' | 'currency' | 'network' | 'account' | 'callbackUrl'>,
): RefundDraft => ({
  ...fields,
  tenantId: p.tenantId,
  paymentId: p.id,
  currency: p.currency as CurrencyCode,
  network: p.network,
  account: refundAccount(p),
  callbackUrl: p.callbackUrl,
});

/**
 * A new refund: `pending` with an address, else `awaiting_address` with a claim token valid `claimHours`; its amount
 * held on its account by the same transaction, announced by `refund.created`.
 */
export function openRefund(draft: RefundDraft, now: Date, claimHours = CLAIM_HOURS): RefundChange {
  if (!isPositive(draft.amount)) throw ValidationError.field('amount', 'The amount must be positive.');
  if (draft.address === null && !draft.claimToken) throw new TypeError('a refund without an address needs a claim token');
  if (draft.address === null && draft.withdrawalId) throw new TypeError('a refund without an address has no withdrawal');
  const at = now.toISOString();
  const awaiting = draft.address === null;
  const { heldInCredit, claimOrigin, ...fields } = draft;
  const state: RefundState = {
    ...fields,
    claimOrigin: draft.address === null ? (claimOrigin ?? null) : null,
    status: awaiting ? 'awaiting_address' : 'pending',
    claimToken: awaiting ? draft.claimToken : null,
    claimExpiresAt: awaiting ? new Date(now.getTime() + claimHours * 3600_000).toISOString() : null,
    amountSent: null,
    withdrawalId: draft.withdrawalId ?? null,
    transactionHash: null,
    failureReason: null,
    createdAt: at,
    updatedAt: at,
    version: 0,
  };
  return {
    state,
    events: statusEvents(state, null),
    effects: heldInCredit
      ? []
      : [
          {
            kind: 'post_entry',
            entryId: `refund:${state.id}:hold`,
            entry: holdEntry({ type: 'refund_hold', account: state.account, currency: state.currency, amount: state.amount, reference: reference(state) }),
          },
        ],
  };
}

export type RefundFact =
  /** The customer entered the address on the claim page (or the merchant gave it later). */
  | {
      readonly kind: 'address_set';
      readonly address: string;
      readonly memo: string | null;
      /** The withdrawal that pays it, written with the change; `networkFee` its fee re-priced for the address. */
      readonly withdrawalId?: string;
      readonly networkFee?: Decimal;
    }
  /** Handed to the withdrawal engine (`withdrawalId`: the withdrawal that pays it). */
  | { readonly kind: 'dispatched'; readonly withdrawalId: string }
  /**
   * Its withdrawal was paid on chain: `amountSent` what the customer received (the withdrawal's amount),
   * `networkFee` what the network fee came to (the withdrawal's, at most the one held).
   */
  | { readonly kind: 'paid'; readonly txHash: string; readonly networkFee: Decimal; readonly amountSent: Decimal }
  /** Its withdrawal failed (or was cancelled or rejected): the withdrawal returned the hold. */
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'cancel' }
  /** Its claim deadline passed unused. */
  | { readonly kind: 'expire' };

function refuse(r: RefundState, fact: RefundFact, message?: string): never {
  throw new ConflictError(message ?? `A ${r.status} refund cannot take '${fact.kind}'.`, { status: r.status, action: fact.kind });
}

/** The hold's release with the payment's refunded total taking the amount back. */
const released = (r: RefundState, suffix: string): RefundEffect[] => [
  {
    kind: 'post_entry',
    entryId: `refund:${r.id}:${suffix}`,
    entry: releaseEntry({ type: 'refund_release', account: r.account, currency: r.currency, amount: r.amount, reference: reference(r) }),
  },
  { kind: 'unrefund', amount: r.amount },
];

/**
 * The end of a refund that was not paid: a refund with a withdrawal only gives its amount back to the payment's
 * refundable total (the withdrawal's failure or cancel releases the hold, in the same transaction); one without a
 * withdrawal releases its hold itself.
 */
const letGo = (r: RefundState, suffix: string): RefundEffect[] => (r.withdrawalId ? [{ kind: 'unrefund', amount: r.amount }] : released(r, suffix));

/**
 * The pure transition: the refund after `fact` at `now`, its events and effects. A fact the guards do not allow is
 * a ConflictError (409 `invalid_state`). Never writes.
 */
export function transition(r: RefundState, fact: RefundFact, now: Date): RefundChange {
  const at = now.toISOString();
  const move = (status: RefundStatus, changes: Partial<RefundState>, effects: RefundEffect[] = []): RefundChange => {
    const state: RefundState = { ...r, ...changes, status, updatedAt: at };
    return { state, events: statusEvents(state, r.status), effects };
  };
  switch (fact.kind) {
    case 'address_set':
      if (!awaitsAddress(r)) refuse(r, fact, `The refund's address is already set (it is ${r.status}).`);
      if (claimExpired(r, now)) refuse(r, fact, 'The claim link has expired.');
      return move('pending', {
        address: fact.address,
        memo: fact.memo,
        claimToken: null,
        withdrawalId: fact.withdrawalId ?? null,
        ...(fact.networkFee === undefined ? {} : { networkFee: fact.networkFee }),
      });
    case 'dispatched':
      if (r.status !== 'pending') refuse(r, fact);
      return move('processing', { withdrawalId: fact.withdrawalId });
    case 'paid': {
      if (r.status !== 'processing' && r.status !== 'pending') refuse(r, fact);
      const charged = add(fact.amountSent, fact.networkFee);
      if (!lte('0', fact.networkFee) || !lte('0', fact.amountSent) || !lte(charged, r.amount)) {
        throw new RangeError(`a payout of ${fact.amountSent} plus a network fee of ${fact.networkFee} outside the refund's ${r.amount}`);
      }
      // The chain took less than the fee held: the withdrawal returned the rest to the balance, so the refund is
      // what the merchant was charged (amount_sent + network_fee), the rest refundable again.
      const returned = sub(r.amount, charged);
      return move(
        'completed',
        { transactionHash: fact.txHash, networkFee: fact.networkFee, amountSent: fact.amountSent, amount: charged },
        isPositive(returned) ? [{ kind: 'unrefund', amount: returned }] : [],
      );
    }
    case 'failed':
      if (r.status !== 'processing' && r.status !== 'pending') refuse(r, fact);
      return move('failed', { failureReason: fact.reason }, letGo(r, 'fail'));
    case 'cancel':
      if (!canCancelRefund(r)) refuse(r, fact, `A ${r.status} refund cannot be cancelled; only one awaiting its address or pending can.`);
      return move('cancelled', { claimToken: null }, letGo(r, 'release'));
    case 'expire':
      if (!claimExpired(r, now)) refuse(r, fact, `A ${r.status} refund whose claim is still open cannot expire.`);
      return move('expired', { claimToken: null }, released(r, 'expire'));
  }
}
