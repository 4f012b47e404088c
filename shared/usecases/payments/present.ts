import * as z from 'zod';
import { checkoutUrl } from '../../domain/checkout.js';
import { findCurrency } from '../../domain/currencies.js';
import type { Decimal } from '../../domain/money.js';
import { toFixed } from '../../domain/money.js';
import type { PaymentState } from '../../domain/payments.js';
import { confirmationsOf, historyOf, PAYMENT_FLAGS, paymentTypeOf } from '../../domain/payments.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * The answer shapes of spec 2.1 (create record, list item) and DESIGN section 10 (single payment): each schema
 * (published in /openapi.json) beside the presenter that returns its output type.
 */
const HistoryItem = lazySchema(() =>
  z.object({
    deposit_id: z.string(),
    amount: z.string(),
    transaction_hash: z.string(),
    confirmations: z.number().int(),
    timestamp: z.string(),
  }),
);
/** Where a payment came from, in every answer that shows a payment: the link or the subscription that opened it. */
const originFields = () => ({
  payment_link_id: z.string().nullable().describe('The payment link whose page opened the payment; null for a payment created otherwise'),
  subscription_id: z
    .string()
    .uuid()
    .nullable()
    .describe('The subscription whose period this payment bills (GET /subscriptions/{id}/cycles/); null for any other payment'),
  subscription_cycle: z.number().int().nullable().describe("That period's index, from 0; null for any other payment"),
});
const originOf = (p: PaymentState) => ({
  payment_link_id: p.paymentLinkId ?? null,
  subscription_id: p.subscription?.id ?? null,
  subscription_cycle: p.subscription?.cycle ?? null,
});

export const CreateRecord = lazySchema(() =>
  z
    .object({
      transaction_id: z.string().uuid(),
      blockchain: z.string(),
      currency: z.string(),
      status: z.string(),
      amount_usd: z.string(),
      amount_crypto: z.string(),
      address: z.string(),
      token: z.string(),
      transaction_hash: z.string().nullable(),
      order_id: z.string().nullable(),
      order_description: z.string().nullable(),
      callback_url: z.string().nullable(),
      expiry_time: z.string(),
      created_at: z.string(),
      updated_at: z.string(),
      is_fixed_rate: z.boolean(),
      is_fee_paid_by_user: z.boolean(),
      price_amount: z.string(),
      price_currency: z.string(),
      fee_amount: z.string(),
      custom_id: z.string().nullable(),
      wallet_id: z.string().nullable(),
      customer_email: z.string().nullable(),
      checkout_url: z.string().url().describe('The hosted payment page: needs no credentials, names the payment by an unguessable id'),
      success_url: z.string().nullable(),
      cancel_url: z.string().nullable(),
      ...originFields(),
    })
    .meta({ id: 'PaymentCreated' }),
);
export const PaymentRecord = lazySchema(() =>
  CreateRecord()
    .extend({
      payment_type: z.string().nullable(),
      confirmations: z.number().int(),
      payment_history: z.array(HistoryItem()),
      merchant_received_usd: z.string().nullable(),
      merchant_received: z.string().nullable(),
      flags: z.array(z.enum(PAYMENT_FLAGS)),
      refunded_amount: z
        .string()
        .describe("What the payment's refunds hold or paid back (refunds released by a cancel, expiry or failure do not count); 0 without refunds"),
    })
    .meta({ id: 'Payment' }),
);
export const ListItem = lazySchema(() =>
  z
    .object({
      transaction_id: z.string(),
      status: z.string(),
      payment_type: z.string().nullable(),
      provider: z.string(),
      price_amount: z.string(),
      price_currency: z.string(),
      pay_amount: z.string(),
      pay_currency: z.string(),
      blockchain_address: z.string(),
      blockchain_network: z.string(),
      token: z.string(),
      transaction_hash: z.string().nullable(),
      confirmations: z.number().int(),
      order_id: z.string().nullable(),
      order_description: z.string().nullable(),
      merchant_received_usd: z.string().nullable(),
      payment_history: z.array(HistoryItem()),
      expiry_time: z.string(),
      created_at: z.string(),
      updated_at: z.string(),
      checkout_url: z.string().url(),
      ...originFields(),
    })
    .meta({ id: 'PaymentListItem' }),
);

/** Absolute URLs of a payment's public pages, on the API's host. */
export interface PaymentLinks {
  checkoutUrl(checkoutId: string): string;
}

export const paymentLinks = (origin: string): PaymentLinks => ({ checkoutUrl: (id) => checkoutUrl(origin, id) });

const display = (p: PaymentState): string => toFixed(p.amountCrypto, findCurrency(p.currency)?.displayPrecision ?? 8, 'up');

export function createRecord(p: PaymentState, links: PaymentLinks): LazyOutput<typeof CreateRecord> {
  return {
    transaction_id: p.id,
    blockchain: p.network,
    currency: p.currency,
    status: p.status,
    amount_usd: p.amountUsd,
    amount_crypto: display(p),
    address: p.address,
    token: p.token,
    transaction_hash: p.transactionHash,
    order_id: p.orderId,
    order_description: p.orderDescription,
    callback_url: p.callbackUrl,
    expiry_time: p.expiryTime,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    is_fixed_rate: p.isFixedRate,
    is_fee_paid_by_user: p.isFeePaidByUser,
    price_amount: p.priceAmount,
    price_currency: p.priceCurrency,
    fee_amount: p.fee,
    custom_id: p.customId,
    wallet_id: p.walletId,
    customer_email: p.customerEmail,
    checkout_url: links.checkoutUrl(p.checkoutId),
    success_url: p.successUrl,
    cancel_url: p.cancelUrl,
    ...originOf(p),
  };
}

export function listItem(p: PaymentState, links: PaymentLinks): LazyOutput<typeof ListItem> {
  return {
    transaction_id: p.id,
    status: p.status,
    payment_type: paymentTypeOf(p),
    provider: 'gateway',
    price_amount: p.priceAmount,
    price_currency: p.priceCurrency,
    pay_amount: display(p),
    pay_currency: p.currency,
    blockchain_address: p.address,
    blockchain_network: p.network,
    token: p.token,
    transaction_hash: p.transactionHash,
    confirmations: confirmationsOf(p),
    order_id: p.orderId,
    order_description: p.orderDescription,
    merchant_received_usd: p.merchantReceivedUsd,
    payment_history: historyOf(p),
    expiry_time: p.expiryTime,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    checkout_url: links.checkoutUrl(p.checkoutId),
    ...originOf(p),
  };
}

/** Single retrieval, status check, update and cancel: the create record plus the chain fields. */
export function paymentRecord(p: PaymentState, links: PaymentLinks, refunded: Decimal = '0'): LazyOutput<typeof PaymentRecord> {
  return {
    ...createRecord(p, links),
    payment_type: paymentTypeOf(p),
    confirmations: confirmationsOf(p),
    payment_history: historyOf(p),
    merchant_received_usd: p.merchantReceivedUsd,
    merchant_received: p.merchantReceived,
    flags: [...p.flags],
    refunded_amount: refunded,
  };
}
