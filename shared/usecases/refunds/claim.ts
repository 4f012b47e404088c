import { MEMO_REQUIRED } from '../../domain/addresses.js';
import { tokenStandard } from '../../domain/checkout.js';
import type { CurrencyCode } from '../../domain/currencies.js';
import { findCurrency, NETWORKS } from '../../domain/currencies.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import type { Decimal } from '../../domain/money.js';
import { lt, sub } from '../../domain/money.js';
import type { RefundState, RefundStatus } from '../../domain/refunds.js';
import { claimExpired, transition } from '../../domain/refunds.js';
import { addressTypeOfCurrency } from '../withdrawals/validate-address.js';
import type { RefundsDeps } from './ports.js';
import { setRefundAddress } from './refunds.js';

/**
 * The public claim page's use cases (issue 27): the customer opens `/refund-claims/<token>`, sees what is refunded
 * and enters the address twice; the address is checked for the payment's network, the payout's network fee re-priced
 * for it and the minimum re-checked, then set ONCE (`address_set`: awaiting_address -> pending, saved conditioned on
 * the version read, so two submissions cannot both set it). The token is the only credential: 128 random bits.
 */

/** A claim token: 16 random bytes, base64url (22 characters); anything else names no claim. */
export const CLAIM_TOKEN = /^[A-Za-z0-9_-]{22}$/;

/** What the page says: the form (`open`), or why there is none. */
export type ClaimState = 'open' | 'set' | 'expired' | 'cancelled' | 'closed';

/** What the claim page shows: the refund's customer-facing facts only (no tenant, no reason, no callback URL). */
export interface ClaimView {
  readonly state: ClaimState;
  readonly status: RefundStatus;
  readonly currency: CurrencyCode;
  readonly token: string;
  readonly networkName: string;
  readonly standard: string | null;
  readonly amount: Decimal;
  readonly networkFee: Decimal;
  /** `amount - networkFee` (what is sent when paid; the estimate until then). */
  readonly amountSent: Decimal;
  readonly address: string | null;
  readonly memo: string | null;
  /** The network needs a memo (destination tag) beside the address. */
  readonly memoRequired: boolean;
  readonly claimExpiresAt: string | null;
  readonly transactionHash: string | null;
}

/** The page's state of a refund at `now`: the form only while it awaits its address and the deadline has not passed. */
export function claimState(r: Pick<RefundState, 'status' | 'claimExpiresAt'>, now: Date): ClaimState {
  switch (r.status) {
    case 'awaiting_address':
      return claimExpired(r, now) ? 'expired' : 'open';
    case 'expired':
      return 'expired';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return 'closed';
    case 'pending':
    case 'processing':
    case 'completed':
      return 'set';
  }
}

/** The claim page's view of a refund (pure). */
export function claimView(r: RefundState, now: Date): ClaimView {
  const currency = findCurrency(r.currency);
  if (!currency) throw new Error(`refund ${r.id} in an unknown currency ${r.currency}`);
  const network = NETWORKS[currency.network];
  return {
    state: claimState(r, now),
    status: r.status,
    currency: currency.code,
    token: currency.token,
    networkName: network.name,
    standard: currency.native ? null : tokenStandard(network),
    amount: r.amount,
    networkFee: r.networkFee,
    amountSent: r.amountSent ?? (lt(r.amount, r.networkFee) ? '0' : sub(r.amount, r.networkFee)),
    address: r.address,
    memo: r.memo,
    memoRequired: MEMO_REQUIRED.has(addressTypeOfCurrency(currency)),
    claimExpiresAt: r.claimExpiresAt,
    transactionHash: r.transactionHash,
  };
}

async function refundOfClaim(token: string, deps: Pick<RefundsDeps, 'refunds'>): Promise<RefundState> {
  const found = CLAIM_TOKEN.test(token) ? await deps.refunds.claim(token) : null;
  const refund = found ? await deps.refunds.get(found.tenantId, found.refundId) : null;
  if (!refund) throw new NotFoundError('No such refund claim.');
  return refund;
}

/** The refund a claim link names (NotFoundError for a token of the wrong form or naming nothing). */
export async function readClaim(token: string, now: Date, deps: Pick<RefundsDeps, 'refunds'>): Promise<ClaimView> {
  return claimView(await refundOfClaim(token, deps), now);
}

export interface ClaimSubmission {
  readonly address: string;
  /** The address typed a second time. */
  readonly confirmation: string;
  readonly memo: string;
}

/**
 * Sets the claim's address. Refused: a claim no longer open (409 invalid_state: set, expired, cancelled), the two
 * entries differing (400 invalid_request on `address_confirmation`), an address (or memo) not of the payment's network
 * (400 invalid_address), a refund that would send less than the network minimum to that address after its fee
 * (422 below_minimum). A concurrent submission loses on the refund's version (409).
 */
export async function submitClaim(
  token: string,
  submission: ClaimSubmission,
  now: Date,
  deps: Pick<RefundsDeps, 'refunds' | 'fees' | 'served' | 'payouts'>,
): Promise<ClaimView> {
  const refund = await refundOfClaim(token, deps);
  const currency = findCurrency(refund.currency);
  if (!currency) throw new Error(`refund ${refund.id} in an unknown currency ${refund.currency}`);
  // The state first: a replayed or late form says the claim is closed, whatever it holds.
  transition(refund, { kind: 'address_set', address: '-', memo: null }, now);
  const address = submission.address.trim();
  const memo = submission.memo.trim();
  if (address === '') throw ValidationError.field('address', 'Enter the address.');
  if (address !== submission.confirmation.trim()) throw ValidationError.field('address_confirmation', 'The two addresses differ.');
  const memoRequired = MEMO_REQUIRED.has(addressTypeOfCurrency(currency));
  // Checked for the network, re-priced, the minimum checked again, and written pending with its withdrawal.
  const set = await setRefundAddress({ tenantId: refund.tenantId, refundId: refund.id, address, memo: memoRequired ? memo : null, now }, deps);
  return claimView(set, now);
}
