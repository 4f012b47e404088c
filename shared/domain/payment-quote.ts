import type { CurrencyDefinition } from './currencies.js';
import { paymentSplit } from './fees.js';
import { div, isPositive, ROUND_PAYABLE, toBaseUnits, toFixed } from './money.js';
import type { Decimal } from './money.js';
import type { PaymentState } from './payments.js';
import type { UsdRates } from './rates.js';
import { convert, FIAT_PRECISION } from './rates.js';

/** A payment's price in crypto, pure: the amount the customer sends, its fee split and its USD value. */

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

/** The USD value of one unit of a payment's currency at the price it was made for (null for a zero amount). */
export const quotedUsdRate = (p: Pick<PaymentState, 'amountUsd' | 'amountCrypto'>): Decimal | null =>
  isPositive(p.amountCrypto) ? div(p.amountUsd, p.amountCrypto, 18, 'down') : null;
