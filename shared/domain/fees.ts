import { ValidationError } from './errors.js';
import type { Decimal } from './money.js';
import { add, gt, isNegative, isPositive, lt, max, parseDecimal, percentOf, ROUND_FEE, sub } from './money.js';

/**
 * Platform fees. A fee is the tenant's percentage (`transaction_fee`, "1" is 1 %) of an amount, rounded UP
 * at the currency's precision, and never below the catalogue's per-currency minimum.
 *
 * On a payment, `is_fee_paid_by_user=true` means the customer pays price + fee and the merchant receives the
 * price; `false` means the customer pays the price and the merchant receives price - fee.
 * On a withdrawal the recipient receives `amount` and `total_deducted = amount + network fee + platform fee`.
 */

/** A fee percentage from settings or a request: a decimal between 0 and 100 inclusive. */
export function parseFeePercent(input: unknown, field = 'fee_percentage'): Decimal {
  const percent = parseDecimal(input, { field, maxScale: 8 });
  if (gt(percent, '100')) throw ValidationError.field(field, 'Must be between 0 and 100.');
  return percent;
}

export interface FeeInput {
  readonly amount: Decimal;
  /** Percent, "1" is 1 %. */
  readonly percent: Decimal;
  /** Fraction digits of the fee's currency (its display precision). */
  readonly precision: number;
  /** Per-currency minimum; omitted or "0" for none. A zero percentage means no fee at all. */
  readonly minFee?: Decimal;
}

export function platformFee(input: FeeInput): Decimal {
  if (isNegative(input.amount)) throw new RangeError('Fee of a negative amount');
  if (!isPositive(input.percent) || !isPositive(input.amount)) return '0';
  const fee = percentOf(input.amount, input.percent, input.precision, ROUND_FEE);
  return input.minFee ? max(fee, input.minFee) : fee;
}

export interface PaymentSplit {
  /** What the customer must send. */
  readonly customerPays: Decimal;
  /** What the merchant's balance receives. */
  readonly merchantReceives: Decimal;
  readonly fee: Decimal;
}

/** Splits a payment price (already in the pay currency, rounded up at its precision) into what each side sees. */
export function paymentSplit(input: FeeInput & { readonly isFeePaidByUser: boolean }): PaymentSplit {
  const fee = platformFee(input);
  if (input.isFeePaidByUser) {
    return { customerPays: add(input.amount, fee), merchantReceives: input.amount, fee };
  }
  const merchantReceives = sub(input.amount, fee);
  return { customerPays: input.amount, merchantReceives: lt(merchantReceives, '0') ? '0' : merchantReceives, fee };
}

export interface WithdrawalTotals {
  readonly amount: Decimal;
  readonly networkFee: Decimal;
  readonly platformFee: Decimal;
  readonly totalFee: Decimal;
  readonly totalDeducted: Decimal;
}

/** Totals of a withdrawal whose recipient receives `amount`. */
export function withdrawalTotals(amount: Decimal, networkFee: Decimal, fee: Decimal): WithdrawalTotals {
  const totalFee = add(networkFee, fee);
  return { amount, networkFee, platformFee: fee, totalFee, totalDeducted: add(amount, totalFee) };
}
