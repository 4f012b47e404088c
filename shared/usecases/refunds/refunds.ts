import { randomBytes, randomUUID } from 'node:crypto';
import * as z from 'zod';
import { checkAddress, expectedFormat } from '../../domain/addresses.js';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency } from '../../domain/currencies.js';
import { GatewayError, InsufficientBalanceError, NotFoundError } from '../../domain/errors.js';
import type { Decimal } from '../../domain/money.js';
import { add, lt, parseDecimal, sub } from '../../domain/money.js';
import type { PaymentState } from '../../domain/payments.js';
import { transition as paymentTransition } from '../../domain/payments.js';
import { quotedUsdRate } from '../../domain/payment-quote.js';
import type { RefundState } from '../../domain/refunds.js';
import { openRefund, refundable, refundAccount, refundDraftOf, requireRefundable, transition } from '../../domain/refunds.js';
import { openRefundPayout, transition as withdrawalTransition } from '../../domain/withdrawals.js';
import { requirePayment } from '../payments/read-payments.js';
import type { IdempotencyGuard, WriteItem } from '../ports.js';
import { decimal } from '../schema.js';
import { feesForAddress } from '../withdrawals/network-fees.js';
import { minimumTo } from '../withdrawals/resolve.js';
import { addressTypeOfCurrency } from '../withdrawals/validate-address.js';
import type { RefundCreation, RefundsDeps } from './ports.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * Refunds of a payment (DESIGN section 12, issue 27): what is refundable, the creation (held at once, within the
 * payment's credit, never to a guessed address: the merchant's or the one the customer enters on the claim page),
 * the reads and the cancel. A refund with an address is paid by a withdrawal of its own, written in the transaction
 * that makes it pending (the batcher then sends it like any withdrawal; the refund follows it: payout.ts).
 */

export const CreateRefundBody = lazySchema(() =>
  z
    .object({
      amount: decimal({ positive: true }).optional(),
      address: z.string().trim().min(1).max(255).optional(),
      memo: z.string().trim().min(1).max(255).optional(),
      reason: z.string().max(500).optional(),
    })
    .meta({ id: 'CreateRefund' }),
);
export type CreateRefundBody = LazyOutput<typeof CreateRefundBody>;

/** A refund named in a path: its id (anything else names no refund: 404). */
export const RefundPath = lazySchema(() => z.object({ refund_id: z.string().uuid('Not a refund id.') }));

export function currencyOf(p: PaymentState): CurrencyDefinition {
  const currency = findCurrency(p.currency);
  if (!currency) throw new Error(`payment ${p.id} in an unknown currency ${p.currency}`);
  return currency;
}

/** The payout's network fee to `address` (the withdrawal table's, with an activation fee where the address is new). */
export async function networkFeeOf(currency: CurrencyDefinition, address: string | undefined, deps: Pick<RefundsDeps, 'fees'>): Promise<Decimal> {
  const priced = await feesForAddress(currency, address, deps.fees);
  return priced.networkFees[currency.code];
}

/** The smallest refund: the network's minimum of what is sent, plus the network fee deducted from it. */
export const smallestRefund = (currency: CurrencyDefinition, address: string | undefined, networkFee: Decimal): Decimal =>
  add(minimumTo(currency, address).minimum, networkFee);

/** `GET /payments/{id}/refundable/`. */
export async function describeRefundable(tenantId: string, paymentId: string, now: Date, deps: Pick<RefundsDeps, 'payments' | 'refunds' | 'fees'>) {
  const payment = await requirePayment(tenantId, paymentId, deps);
  const currency = currencyOf(payment);
  const r = refundable(payment, await deps.refunds.refunded(tenantId, payment.id), now);
  const fee = await networkFeeOf(currency, undefined, deps);
  return {
    currency: currency.code,
    received: r.received,
    refunded: r.refunded,
    refundable: r.refundable,
    estimated_network_fee: fee,
    minimum: smallestRefund(currency, undefined, fee),
  };
}

/** 400 `invalid_address` unless `address` (and `memo`, where the chain needs one) suits the payment's network. */
export function requireRefundAddress(currency: CurrencyDefinition, address: string, memo: string | undefined, deps: Pick<RefundsDeps, 'served'>): void {
  const type = addressTypeOfCurrency(currency);
  const context = { btcNetwork: deps.served.btcNetwork };
  const check = checkAddress(type, address, memo, context);
  if (!check.valid) throw new GatewayError('invalid_address', check.error, { address, expected_format: expectedFormat(type, context) });
}

export interface CreateRefundInput {
  readonly tenantId: string;
  readonly paymentId: string;
  readonly body: CreateRefundBody;
  readonly now: Date;
  /** The origin claim links are given on (the webhooks' claim_url). */
  readonly origin?: string | null;
  readonly idempotency?: IdempotencyGuard<RefundState> | null;
}

/**
 * `POST /payments/{id}/refunds/`: `amount` defaults to what is suggested (an overpayment's excess, else all that is
 * refundable). Refused up front: a payment not credited (409 invalid_state), more than is refundable (400
 * invalid_request), a bad address (400 invalid_address), a net below the network's minimum (422 below_minimum with
 * `minimum`), more than the available balance (400 insufficient_balance). The refund, its hold, the payment's
 * refunded total and the Idempotency-Key record are then ONE transaction (the total's condition decides races).
 */
export async function createRefund(input: CreateRefundInput, deps: RefundsDeps): Promise<RefundState> {
  const { body, now } = input;
  const payment = await requirePayment(input.tenantId, input.paymentId, deps);
  const currency = currencyOf(payment);
  if (!deps.served.withdrawals.has(currency.network)) {
    throw new GatewayError('unsupported_blockchain', `Refunds on ${currency.network} are not paid by this deployment.`, { blockchain: currency.network });
  }
  const r = refundable(payment, await deps.refunds.refunded(payment.tenantId, payment.id), now);
  const amount = body.amount === undefined ? r.suggested : parseDecimal(body.amount, { field: 'amount', allowZero: false, maxScale: currency.decimals });
  requireRefundable(amount, r, currency.code);
  if (body.address !== undefined) requireRefundAddress(currency, body.address, body.memo, deps);
  const networkFee = await networkFeeOf(currency, body.address, deps);
  requireAboveMinimum(currency, body.address, amount, networkFee);
  const account = refundAccount(payment);
  const withdrawalId = body.address === undefined ? null : randomUUID();
  const insufficient = (available: Decimal) =>
    new GatewayError('insufficient_balance', `The available balance of ${available} ${currency.code} is lower than the refund of ${amount} ${currency.code}.`, {
      available,
      requested: amount,
      currency: currency.code,
    });
  // A settling refund is held by the credit it comes with; any other by the balance the payment credited.
  if (!r.settles) {
    const before = await deps.ledger.balance(payment.tenantId, account, currency.code);
    if (lt(before.amount, amount)) throw insufficient(before.amount);
  }
  const change = openRefund(
    refundDraftOf(payment, {
      id: randomUUID(),
      amount,
      networkFee,
      address: body.address ?? null,
      memo: body.memo ?? null,
      reason: body.reason ?? null,
      claimToken: body.address === undefined ? randomBytes(16).toString('base64url') : null,
      claimOrigin: input.origin ?? null,
      withdrawalId,
      heldInCredit: r.settles,
    }),
    now,
  );
  const payout = withdrawalId === null ? [] : deps.payouts.creationItems(payoutOf(change.state, withdrawalId, currency, networkFee, now), now);
  const guard = input.idempotency;
  const creation = { change, base: r.base, alsoWrite: (stored: RefundState) => [...payout, ...(guard ? [guard.completeItem(stored)] : [])] };
  if (r.settles) return settleWith(payment, creation, now, deps);
  try {
    return await deps.refunds.create(creation, now);
  } catch (error) {
    if (error instanceof InsufficientBalanceError) throw insufficient((await deps.ledger.balance(payment.tenantId, account, currency.code)).amount);
    throw error;
  }
}

/**
 * The first refund of a payment left partially paid past its expiry, in ONE transaction with the payment it settles:
 * the payment failed and credited its confirmed deposits (less the platform fee) with the refund's amount held, the
 * refund, its payout and its Idempotency-Key record. The payment's version decides a race (409: retry, and the
 * refund is then an ordinary one of the credited payment).
 */
async function settleWith(payment: PaymentState, creation: RefundCreation, now: Date, deps: Pick<RefundsDeps, 'payments' | 'refunds'>): Promise<RefundState> {
  const settled = paymentTransition(payment, { kind: 'settle_for_refund', refundHold: creation.change.state.amount, usdRate: quotedUsdRate(payment) }, now);
  const { stored, items } = deps.refunds.creationItems(creation, now);
  await deps.payments.save(payment, settled, now, items);
  return stored;
}

/** `GET /payments/{id}/refunds/`: the payment's refunds, oldest first (404 for an unknown payment). */
export async function listRefunds(tenantId: string, paymentId: string, deps: Pick<RefundsDeps, 'payments' | 'refunds'>): Promise<RefundState[]> {
  const payment = await requirePayment(tenantId, paymentId, deps);
  return deps.refunds.listByPayment(tenantId, payment.id);
}

export async function requireRefund(tenantId: string, refundId: string, deps: Pick<RefundsDeps, 'refunds'>): Promise<RefundState> {
  const refund = await deps.refunds.get(tenantId, refundId);
  if (!refund) throw new NotFoundError('Refund not found.', { refund_id: refundId });
  return refund;
}

/** 422 `below_minimum` (with the minimum) when `amount` less the network fee to `address` is below the network's minimum. */
function requireAboveMinimum(currency: CurrencyDefinition, address: string | undefined, amount: Decimal, networkFee: Decimal): void {
  const minimum = smallestRefund(currency, address, networkFee);
  if (!lt(amount, minimum)) return;
  throw new GatewayError(
    'below_minimum',
    `The refund would send ${lt(amount, networkFee) ? '0' : sub(amount, networkFee)} ${currency.code} after the ${networkFee} network fee; the smallest refund is ${minimum} ${currency.code}.`,
    { minimum, requested: amount, network_fee: networkFee, currency: currency.code },
  );
}

/**
 * A refund awaiting its address gets one (the claim page's, or the merchant's): the address checked for the payment's
 * network (400 invalid_address), the network fee re-priced for it (a TRON address not yet activated costs its
 * activation) and the minimum checked again (422 below_minimum); then the refund, pending, and the withdrawal that
 * pays it in ONE transaction conditioned on the refund's version (409 when it moved: cancelled, expired, already set).
 */
export async function setRefundAddress(
  input: { readonly tenantId: string; readonly refundId: string; readonly address: string; readonly memo: string | null; readonly now: Date },
  deps: Pick<RefundsDeps, 'refunds' | 'payouts' | 'fees' | 'served'>,
  alsoWrite?: (stored: RefundState) => readonly WriteItem[],
): Promise<RefundState> {
  const refund = await requireRefund(input.tenantId, input.refundId, deps);
  const currency = findCurrency(refund.currency);
  if (!currency) throw new Error(`refund ${refund.id} in an unknown currency ${refund.currency}`);
  requireRefundAddress(currency, input.address, input.memo ?? undefined, deps);
  const networkFee = await networkFeeOf(currency, input.address, deps);
  requireAboveMinimum(currency, input.address, refund.amount, networkFee);
  const withdrawalId = randomUUID();
  const change = transition(refund, { kind: 'address_set', address: input.address, memo: input.memo, withdrawalId, networkFee }, input.now);
  const payout = deps.payouts.creationItems(payoutOf(change.state, withdrawalId, currency, networkFee, input.now), input.now);
  return deps.refunds.save(refund, change, input.now, (stored) => [...payout, ...(alsoWrite?.(stored) ?? [])]);
}

/** The withdrawal that pays a refund with an address: the refund's amount less the network fee, on its hold. */
function payoutOf(refund: RefundState, id: string, currency: CurrencyDefinition, networkFee: Decimal, now: Date) {
  if (refund.address === null) throw new TypeError('a refund without an address is not paid');
  return openRefundPayout(refund, { id, currency: currency.code, network: currency.network, token: currency.token, address: refund.address, networkFee }, now);
}

/**
 * `POST /refunds/{id}/cancel/`: until it is handed to the chain (else 409 invalid_state). One awaiting its address
 * releases its hold; a pending one is cancelled with its withdrawal in ONE transaction, the withdrawal's cancel
 * releasing the hold (once) and the refund giving the amount back to the payment.
 */
export async function cancelRefund(
  tenantId: string,
  refundId: string,
  now: Date,
  deps: Pick<RefundsDeps, 'refunds' | 'payouts'>,
  idempotency: IdempotencyGuard<RefundState> | null = null,
): Promise<RefundState> {
  const refund = await requireRefund(tenantId, refundId, deps);
  const change = transition(refund, { kind: 'cancel' }, now);
  if (refund.withdrawalId === null) return deps.refunds.save(refund, change, now, idempotency ? (stored) => [idempotency.completeItem(stored)] : undefined);
  const w = await deps.payouts.get(tenantId, refund.withdrawalId);
  if (!w) throw new Error(`refund ${refund.id} is paid by a withdrawal ${refund.withdrawalId} that does not exist`);
  const followed = deps.refunds.changeItems(refund, change, now);
  await deps.payouts.save(w, withdrawalTransition(w, { kind: 'cancel' }, now), now, () => [
    ...followed.items,
    ...(idempotency ? [idempotency.completeItem(followed.stored)] : []),
  ]);
  return followed.stored;
}
