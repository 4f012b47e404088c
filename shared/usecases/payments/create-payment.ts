import { randomBytes, randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { GatewayError, ValidationError } from '../../domain/errors.js';
import type { UsdRates } from '../../domain/rates.js';
import { fiatValue, usdValue } from '../../domain/rates.js';
import { gt, lt, parseDecimal } from '../../domain/money.js';
import type { PaymentState } from '../../domain/payments.js';
import { openPayment } from '../../domain/payments.js';
import { quote } from '../../domain/payment-quote.js';
import type { Tenant } from '../../domain/tenant.js';
import { checkCallbackUrlSyntax } from '../../net/callback-url.js';
import type { IdempotencyGuard, UsageGuard, WriteItem } from '../ports.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import { checkAmountAndCurrency, decimal, integerInput } from '../schema.js';
import type { PaymentsDeps } from './ports.js';
import { resolvePayCurrency, resolvePriceCurrency } from './resolve.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * `POST /payments/`: every body form of spec 4.3 (amount + currency; blockchain + token; price_amount /
 * price_currency / pay_currency). The crypto amount is exact at the currency's display precision, rounded
 * up; the fee as DESIGN section 4 says. The payment, its address item, the tenant's counters, the
 * `payment.created` event, the idempotency record and the request's count commit in ONE transaction.
 */
/** The fields of a creation body, before the cross-field rules (the estimate body picks from them). */
export const CreatePaymentFields = lazySchema(() =>
  z.object({
    amount: decimal({ maxScale: 8, positive: true }).optional(),
    price_amount: decimal({ maxScale: 8, positive: true }).optional(),
    currency: z.string().trim().min(1).max(20).optional(),
    pay_currency: z.string().trim().min(1).max(20).optional(),
    blockchain: z.string().trim().min(1).max(20).optional(),
    token: z.string().trim().min(1).max(20).optional(),
    price_currency: z.string().trim().min(1).max(10).optional(),
    order_id: z.string().max(100).optional(),
    order_description: z.string().max(1000).optional(),
    callback_url: z.string().max(2048).optional(),
    success_url: z.string().max(2048).optional().describe('Where the hosted checkout page sends the customer once paid (HTTPS).'),
    cancel_url: z.string().max(2048).optional().describe('Where the hosted checkout page lets the customer go back unpaid (HTTPS).'),
    custom_id: z.string().max(64).optional(),
    is_fixed_rate: z.boolean().optional(),
    is_fee_paid_by_user: z.boolean().optional(),
    customer_email: z.string().email().max(254).optional(),
    wallet_id: z.string().min(1).max(64).optional(),
    expiry_minutes: integerInput().pipe(z.number().int().min(1, 'Must be at least 1.').max(1440, 'Must be at most 1440.')).optional(),
  }),
);
export const CreatePaymentBody = lazySchema(() => CreatePaymentFields().check(checkAmountAndCurrency()).meta({ id: 'CreatePayment' }));
export type CreatePaymentBody = LazyOutput<typeof CreatePaymentBody>;

/**
 * 400 `invalid_request` for a price below the currency's minimum, with the minimum in the merchant's terms:
 * `minimum` + `currency` (the rule), `minimum_price` in the payment's `price_currency` and `min_amount_usd`,
 * both rounded up to the cent so that a payment priced at them is never below the minimum.
 */
export function belowMinimum(field: string, amount: string, currency: CurrencyDefinition, priceCurrency: string, rates: UsdRates): GatewayError {
  const minimumPrice = fiatValue(currency, currency.minAmount, priceCurrency, rates, 'up');
  const message =
    `The amount is ${amount} ${currency.code}, below the minimum of ${currency.minAmount} ${currency.code}` +
    (minimumPrice === null ? '.' : ` (${minimumPrice} ${priceCurrency} at the current rate).`);
  return new GatewayError('invalid_request', message, {
    [field]: [message],
    minimum: currency.minAmount,
    currency: currency.code,
    minimum_price: minimumPrice,
    price_currency: priceCurrency,
    min_amount_usd: usdValue(currency, currency.minAmount, rates, 'up'),
  });
}

/**
 * A price quoted in `currency` at the current rates with the tenant's fee, within the currency's bounds and the
 * tenant's largest payment: 400 `invalid_request` on `field` otherwise. `POST /payments/` quotes each payment so, and
 * `POST /plans/` a plan's price, so that no period of a plan is refused for its price at the rate of its creation.
 */
export async function quoteWithinBounds(
  input: {
    readonly field: string;
    readonly price: string;
    readonly priceCurrency: string;
    readonly currency: CurrencyDefinition;
    readonly tenant: Tenant;
    readonly isFeePaidByUser: boolean;
    readonly now: Date;
  },
  deps: Pick<PaymentsDeps, 'rates'>,
): Promise<ReturnType<typeof quote>> {
  const { field, price, priceCurrency, currency, tenant } = input;
  const settings = tenant.settings;
  const rates = usdRatesOf(await currentRates(deps.rates, input.now));
  const q = quote({ price, priceCurrency, currency, rates, feePercent: settings.transaction_fee, isFeePaidByUser: input.isFeePaidByUser });
  if (lt(q.priceCrypto, currency.minAmount)) throw belowMinimum(field, q.priceCrypto, currency, priceCurrency, rates);
  if (gt(q.amountCrypto, currency.maxAmount)) {
    throw ValidationError.field(field, `The amount is ${q.amountCrypto} ${currency.code}, above the maximum of ${currency.maxAmount} ${currency.code}.`);
  }
  const maxUsd = settings.limits.max_payment_amount;
  if (maxUsd !== null && gt(q.amountUsd, maxUsd)) {
    throw ValidationError.field(field, `The amount of ${q.amountUsd} USD exceeds the maximum payment amount of ${maxUsd} USD.`);
  }
  return q;
}

export interface CreatePaymentInput {
  readonly body: CreatePaymentBody;
  readonly tenant: Tenant;
  readonly now: Date;
  readonly idempotency?: IdempotencyGuard<PaymentState> | null;
  /** The request's count, committed with the payment (its condition keeps the tenant's hourly limits). */
  readonly usage?: UsageGuard | null;
  /** The payment link whose visit opens it (shared/usecases/payment-links/visit.ts), and that link's writes. */
  readonly link?: { readonly id: string; readonly items: (stored: PaymentState) => readonly WriteItem[] } | null;
  /** Issue 30: the subscription period the payment bills, and the writes of its advance, committed with the payment. */
  readonly subscription?: { readonly id: string; readonly cycle: number; readonly alsoWrite: (stored: PaymentState) => readonly WriteItem[] } | null;
}

export async function createPayment(input: CreatePaymentInput, deps: PaymentsDeps): Promise<PaymentState> {
  const { body, tenant, now } = input;
  const settings = tenant.settings;
  const rawPrice = body.amount ?? body.price_amount;
  if (rawPrice === undefined) throw ValidationError.field('amount', 'This field is required.');
  const priceField = body.amount !== undefined ? 'amount' : 'price_amount';
  const price = parseDecimal(rawPrice, { field: priceField, allowZero: false, maxScale: 8 });
  const currency = resolvePayCurrency(body, deps);
  const priceCurrency = resolvePriceCurrency(body.price_currency);
  const callbackUrl =
    body.callback_url === undefined ? null : checkCallbackUrlSyntax(body.callback_url, { allowLoopback: deps.settings.allowLoopbackCallbacks }).toString();
  const pageUrl = (field: 'success_url' | 'cancel_url') => {
    const raw = body[field];
    return raw === undefined ? null : checkCallbackUrlSyntax(raw, { allowLoopback: deps.settings.allowLoopbackCallbacks }, field).toString();
  };
  const successUrl = pageUrl('success_url');
  const cancelUrl = pageUrl('cancel_url');
  if (body.wallet_id !== undefined && !(await deps.wallets.exists(tenant.id, body.wallet_id))) {
    throw ValidationError.field('wallet_id', `No wallet with wallet_id ${body.wallet_id}.`);
  }

  const isFeePaidByUser = body.is_fee_paid_by_user ?? settings.is_fee_paid_by_user;
  const q = await quoteWithinBounds({ field: priceField, price, priceCurrency, currency, tenant, isFeePaidByUser, now }, deps);

  const id = randomUUID();
  const { address, salt } = await deps.addresses.addressFor(currency.network, tenant.id, id);
  const expiryMinutes = body.expiry_minutes ?? settings.payment_expiry_minutes;
  const guard = input.idempotency;
  const link = input.link;
  const change = openPayment(
    {
      id,
      tenantId: tenant.id,
      currency: currency.code,
      network: currency.network,
      token: currency.token,
      decimals: currency.decimals,
      priceAmount: price,
      priceCurrency,
      amountUsd: q.amountUsd,
      amountCrypto: q.amountCrypto,
      priceCrypto: q.priceCrypto,
      fee: q.fee,
      feePercent: settings.transaction_fee,
      address,
      salt,
      isFixedRate: body.is_fixed_rate ?? true,
      isFeePaidByUser,
      orderId: body.order_id ?? null,
      orderDescription: body.order_description ?? null,
      callbackUrl,
      customId: body.custom_id ?? null,
      walletId: body.wallet_id ?? null,
      customerEmail: body.customer_email ?? null,
      checkoutId: randomBytes(16).toString('base64url'),
      successUrl,
      cancelUrl,
      expiryTime: new Date(now.getTime() + expiryMinutes * 60_000).toISOString(),
      ...(input.link ? { paymentLinkId: input.link.id } : {}),
      ...(input.subscription ? { subscription: { id: input.subscription.id, cycle: input.subscription.cycle } } : {}),
    },
    now,
  );
  return deps.payments.create(
    {
      change,
      family: currency.family,
      dailyLimitUsd: settings.limits.daily_payment_limit,
      count: input.usage ?? null,
      alsoWrite: (stored: PaymentState) => [
        ...(guard ? [guard.completeItem(stored)] : []),
        ...(link?.items(stored) ?? []),
        ...(input.subscription?.alsoWrite(stored) ?? []),
      ],
    },
    now,
  );
}
