import * as z from 'zod';
import { ValidationError } from '../../domain/errors.js';
import { jsonNumber, parseDecimal } from '../../domain/money.js';
import { quote } from '../../domain/payment-quote.js';
import { exchangeRate, fiatValue } from '../../domain/rates.js';
import type { Tenant } from '../../domain/tenant.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import { checkAmountAndCurrency } from '../schema.js';
import { CreatePaymentFields } from './create-payment.js';
import type { PaymentsDeps } from './ports.js';
import { resolvePayCurrency, resolvePriceCurrency } from './resolve.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * `POST /payments/estimate/`: what a payment of this price would ask the customer, without creating it.
 * `GET /payments/min-amount/`: a currency's payment bounds (JSON numbers, spec 4.3).
 */
/** The pricing fields of a payment's creation body: what a payment of this price would ask. */
export const EstimateBody = lazySchema(() =>
  CreatePaymentFields()
    .pick({
      amount: true,
      price_amount: true,
      currency: true,
      pay_currency: true,
      blockchain: true,
      token: true,
      price_currency: true,
      is_fee_paid_by_user: true,
    })
    .check(checkAmountAndCurrency())
    .meta({ id: 'EstimatePayment' }),
);
export type EstimateBody = LazyOutput<typeof EstimateBody>;

export async function estimatePayment(body: EstimateBody, tenant: Tenant, now: Date, deps: PaymentsDeps): Promise<Record<string, unknown>> {
  const raw = body.amount ?? body.price_amount;
  if (raw === undefined) throw ValidationError.field('amount', 'This field is required.');
  const price = parseDecimal(raw, { field: body.amount !== undefined ? 'amount' : 'price_amount', allowZero: false, maxScale: 8 });
  const currency = resolvePayCurrency(body, deps);
  const priceCurrency = resolvePriceCurrency(body.price_currency);
  const stored = await currentRates(deps.rates, now);
  const rates = usdRatesOf(stored);
  const isFeePaidByUser = body.is_fee_paid_by_user ?? tenant.settings.is_fee_paid_by_user;
  const q = quote({ price, priceCurrency, currency, rates, feePercent: tenant.settings.transaction_fee, isFeePaidByUser });
  return {
    price_amount: price,
    price_currency: priceCurrency,
    currency: currency.code,
    blockchain: currency.network,
    token: currency.token,
    amount_crypto: q.amountCrypto,
    fee_amount: q.fee,
    fee_percentage: tenant.settings.transaction_fee,
    merchant_receives: q.merchantReceives,
    amount_usd: q.amountUsd,
    rate: exchangeRate(priceCurrency, currency.code, rates),
    is_fee_paid_by_user: isFeePaidByUser,
    min_amount: currency.minAmount,
    max_amount: currency.maxAmount,
    rate_timestamp: stored.at,
  };
}

export const MinAmountQuery = lazySchema(() =>
  z.object({
    currency: z.string().trim().min(1).max(20),
    price_currency: z.string().trim().min(1).max(10).optional().describe('Fiat of `min_amount_price` (USD, EUR, GBP); default USD'),
  }),
);
export type MinAmountQuery = z.output<ReturnType<typeof MinAmountQuery>>;

/**
 * A currency's payment bounds, and its minimum in the merchant's terms: `min_amount_usd` and `min_amount_price`
 * in `price_currency`, rounded up to the cent so that a payment priced at them is never below the minimum.
 */
export async function minAmount(query: MinAmountQuery, now: Date, deps: Pick<PaymentsDeps, 'rates' | 'served'>): Promise<Record<string, unknown>> {
  const currency = resolvePayCurrency({ currency: query.currency }, deps);
  const priceCurrency = resolvePriceCurrency(query.price_currency);
  const rates = usdRatesOf(await currentRates(deps.rates, now));
  const inFiat = (fiat: string) => {
    const value = fiatValue(currency, currency.minAmount, fiat, rates, 'up');
    return value === null ? null : jsonNumber(value);
  };
  return {
    currency: currency.code,
    min_amount: jsonNumber(currency.minAmount),
    max_amount: jsonNumber(currency.maxAmount),
    blockchain: currency.network,
    token: currency.token,
    min_amount_usd: inFiat('USD'),
    min_amount_price: inFiat(priceCurrency),
    price_currency: priceCurrency,
  };
}
