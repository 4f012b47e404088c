import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { findCurrency } from '../../domain/currencies.js';
import { parseFeePercent, platformFee } from '../../domain/fees.js';
import type { JsonNumber } from '../../domain/json-number.js';
import { add, jsonNumber, parseDecimal } from '../../domain/money.js';
import { convert, exchangeRate, precisionOf } from '../../domain/rates.js';
import { decimalInput, queryBoolean } from '../schema.js';
import { requireSupported, roundingFor } from './common.js';
import { currentRates, usdRatesOf } from './current-rates.js';
import type { RatesDeps } from './ports.js';

/**
 * `GET /rates/?currency_to=...` (variant B): `amount` of `currency_from` (default 1.0 USD) in
 * `currency_to`, through USD. A fee (`fee_percentage`, default the tenant's `transaction_fee`) is added to
 * `estimated_amount` when the customer pays it (`is_fee_paid_by_user`, default the tenant's setting):
 * `estimated_amount` is what the customer sends. Numbers in the answer are JSON numbers (exact text).
 */
export const ConvertAmountQuery = lazySchema(() =>
  z.object({
    amount: decimalInput().optional(),
    currency_from: z.string().trim().min(1).max(20).optional(),
    currency_to: z.string().trim().min(1).max(20),
    fee_percentage: decimalInput().optional(),
    is_fee_paid_by_user: queryBoolean().optional(),
    full: queryBoolean().optional(),
  }),
);
export type ConvertAmountQuery = z.output<ReturnType<typeof ConvertAmountQuery>>;

export interface ConvertAmountInput {
  readonly query: ConvertAmountQuery;
  readonly settings: { readonly transaction_fee: string; readonly is_fee_paid_by_user: boolean };
  readonly now: Date;
}

export interface Conversion {
  readonly currency_from: string;
  readonly currency_to: string;
  readonly amount: JsonNumber;
  readonly estimated_amount: JsonNumber;
  readonly rate: JsonNumber;
  readonly fee_percentage?: JsonNumber;
  readonly fee_amount?: JsonNumber;
  readonly timestamp?: string;
}

export async function convertAmount(input: ConvertAmountInput, deps: RatesDeps): Promise<Conversion> {
  const { query } = input;
  const from = requireSupported(query.currency_from ?? 'USD', deps.disabled);
  const to = requireSupported(query.currency_to, deps.disabled);
  const amount = parseDecimal(query.amount ?? '1.0', { field: 'amount', allowZero: false });
  const percent = parseFeePercent(query.fee_percentage ?? input.settings.transaction_fee);
  const feePaidByUser = query.is_fee_paid_by_user ?? input.settings.is_fee_paid_by_user;

  const stored = await currentRates(deps, input.now);
  const rates = usdRatesOf(stored);
  const converted = convert(amount, from, to, rates, roundingFor(to));
  const fee = platformFee({ amount: converted, percent, precision: precisionOf(to), minFee: findCurrency(to)?.minFee });
  const estimated = feePaidByUser ? add(converted, fee) : converted;
  const base: Conversion = {
    currency_from: from,
    currency_to: to,
    amount: jsonNumber(amount),
    estimated_amount: jsonNumber(estimated),
    rate: jsonNumber(exchangeRate(from, to, rates)),
  };
  if (!query.full) return base;
  return { ...base, fee_percentage: jsonNumber(percent), fee_amount: jsonNumber(fee), timestamp: stored.at };
}
