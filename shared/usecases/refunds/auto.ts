import { randomBytes, randomUUID } from 'node:crypto';
import type { ServedNetworks } from '../../domain/currencies.js';
import { findCurrency } from '../../domain/currencies.js';
import { isPositive, lt, min, mul, sub } from '../../domain/money.js';
import { quotedUsdRate } from '../../domain/payment-quote.js';
import type { PaymentState } from '../../domain/payments.js';
import { merchantCredit, received } from '../../domain/payments.js';
import { openRefund, refundDraftOf } from '../../domain/refunds.js';
import type { AutoRefundExcess } from '../../domain/tenant.js';
import type { RefundWithCredit } from '../payments/ports.js';
import type { WithdrawalFeeDeps } from '../withdrawals/network-fees.js';
import type { RefundRepository } from './ports.js';
import { networkFeeOf, smallestRefund } from './refunds.js';

/** What opening a refund of an overpayment's excess needs. */
export interface ExcessRefundDeps {
  /** The tenant's `auto_refund_excess` setting (off for a tenant that is gone). */
  readonly setting: (tenantId: string) => Promise<AutoRefundExcess | null>;
  readonly refunds: Pick<RefundRepository, 'creationItems'>;
  readonly fees: WithdrawalFeeDeps;
  readonly served: ServedNetworks;
  /** The claim links' origin (`PUBLIC_BASE_URL`); null: the webhooks carry no claim_url (the API shows it). */
  readonly publicBaseUrl: string | null;
}

export const AUTO_REFUND_REASON = 'Overpayment: the excess is refunded automatically.';

/**
 * For a tenant with `auto_refund_excess` on, the refund of an overpaid payment's excess, opened as the payment
 * completes (DESIGN section 12): the excess is what the confirmed deposits brought beyond the amount asked (at most the
 * credit); it is refunded where it is worth at least the tenant's threshold at the payment's own price and at least
 * the smallest refund the network pays, on a network this deployment pays out on. The refund awaits its address (a
 * claim link; its claim_url in `refund.created`), its amount held by the payment's credit: `items` commit in the
 * completion's transaction, so the payment is never credited without its refund, nor refunded twice. Null: none.
 */
export async function excessRefund(payment: PaymentState, deps: ExcessRefundDeps, now: Date): Promise<RefundWithCredit | null> {
  const currency = findCurrency(payment.currency);
  if (!currency || !payment.flags.includes('overpaid') || !deps.served.withdrawals.has(currency.network)) return null;
  const setting = await deps.setting(payment.tenantId);
  if (!setting?.enabled) return null;
  const confirmed = received(payment, 'confirmed');
  const credit = merchantCredit(payment, confirmed).net;
  const excess = min(sub(confirmed, payment.amountCrypto), credit);
  const usdRate = quotedUsdRate(payment);
  if (!isPositive(excess) || usdRate === null || lt(mul(excess, usdRate), setting.threshold_usd)) return null;
  const networkFee = await networkFeeOf(currency, undefined, deps);
  if (lt(excess, smallestRefund(currency, undefined, networkFee))) return null;
  const change = openRefund(
    refundDraftOf(payment, {
      id: randomUUID(),
      amount: excess,
      networkFee,
      address: null,
      memo: null,
      reason: AUTO_REFUND_REASON,
      claimToken: randomBytes(16).toString('base64url'),
      claimOrigin: deps.publicBaseUrl,
      heldInCredit: true,
    }),
    now,
  );
  return { hold: excess, items: deps.refunds.creationItems({ change, base: credit }, now).items };
}

/** The excess of a payment as an `ExcessRefund` port of the payment use cases. */
export const excessRefunds =
  (deps: ExcessRefundDeps) =>
  (payment: PaymentState, now: Date): Promise<RefundWithCredit | null> =>
    excessRefund(payment, deps, now);
