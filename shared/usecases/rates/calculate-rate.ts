import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { findCurrency } from '../../domain/currencies.js';
import { parseFeePercent, platformFee } from '../../domain/fees.js';
import { add, parseDecimal, toFixed } from '../../domain/money.js';
import { convert, exchangeRate, precisionOf } from '../../domain/rates.js';
import { decimalInput } from '../schema.js';
import { requireSupported, roundingFor } from './common.js';
import { currentRates, usdRatesOf } from './current-rates.js';
import type { RatesDeps } from './ports.js';

/**
 * `POST /rates/calculate/`: what `amount` of `from_currency` is in `to_currency` (`to_amount`, before
 * fees), the platform fee in `to_currency` (the tenant's `transaction_fee` percent, rounded up, at least
 * the currency's minimum fee), and `total_amount`: what the customer sends, `to_amount + fee` when the
 * customer pays the fee (`is_fee_paid_by_user`, default true per the interface) and `to_amount` when the
 * merchant bears it. The quote holds five minutes (`rate_expires_at`). Creates nothing.
 */
export const CalculateRateBody = lazySchema(() =>
  z.object({
    amount: decimalInput(),
    from_currency: z.string().trim().min(1).max(20),
    to_currency: z.string().trim().min(1).max(20),
    is_fee_paid_by_user: z.boolean().default(true),
  }),
);
export type CalculateRateBody = z.output<ReturnType<typeof CalculateRateBody>>;

export const RATE_VALIDITY_SECONDS = 5 * 60;

export interface CalculateRateInput {
  readonly body: CalculateRateBody;
  readonly settings: { readonly transaction_fee: string };
  readonly now: Date;
}

export interface Calculation {
  readonly from_currency: string;
  readonly from_amount: string;
  readonly to_currency: string;
  readonly to_amount: string;
  readonly exchange_rate: string;
  readonly fee_amount: string;
  readonly fee_currency: string;
  readonly total_amount: string;
  readonly rate_expires_at: string;
  readonly calculation_timestamp: string;
}

export async function calculateRate(input: CalculateRateInput, deps: RatesDeps): Promise<Calculation> {
  const { body, now } = input;
  // 400 for an amount that is not greater than zero (the interface's `invalid_request`).
  const amount = parseDecimal(body.amount, { field: 'amount', allowZero: false });
  const from = requireSupported(body.from_currency, deps.disabled);
  const to = requireSupported(body.to_currency, deps.disabled);
  const percent = parseFeePercent(input.settings.transaction_fee, 'transaction_fee');

  const rates = usdRatesOf(await currentRates(deps, now));
  const precision = precisionOf(to);
  const toAmount = convert(amount, from, to, rates, roundingFor(to));
  const fee = platformFee({ amount: toAmount, percent, precision, minFee: findCurrency(to)?.minFee });
  const total = body.is_fee_paid_by_user ? add(toAmount, fee) : toAmount;
  const shown = (value: string) => toFixed(value, precision, 'down');
  return {
    from_currency: from,
    from_amount: amount,
    to_currency: to,
    to_amount: shown(toAmount),
    exchange_rate: exchangeRate(from, to, rates),
    fee_amount: shown(fee),
    fee_currency: to,
    total_amount: shown(total),
    rate_expires_at: new Date(now.getTime() + RATE_VALIDITY_SECONDS * 1000).toISOString(),
    calculation_timestamp: now.toISOString(),
  };
}
