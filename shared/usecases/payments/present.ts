import { findCurrency } from '../../domain/currencies.js';
import { toFixed } from '../../domain/money.js';
import type { PaymentState } from '../../domain/payments.js';
import { confirmationsOf, historyOf, paymentTypeOf } from '../../domain/payments.js';

/** The answer shapes of spec 2.1 (create record, list item) and DESIGN section 10 (single payment). */

const display = (p: PaymentState): string => toFixed(p.amountCrypto, findCurrency(p.currency)?.displayPrecision ?? 8, 'up');

export function createRecord(p: PaymentState): Record<string, unknown> {
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
  };
}

export function listItem(p: PaymentState): Record<string, unknown> {
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
  };
}

/** Single retrieval, status check, update and cancel: the create record plus the chain fields. */
export function paymentRecord(p: PaymentState): Record<string, unknown> {
  return {
    ...createRecord(p),
    payment_type: paymentTypeOf(p),
    confirmations: confirmationsOf(p),
    payment_history: historyOf(p),
    merchant_received_usd: p.merchantReceivedUsd,
    merchant_received: p.merchantReceived,
    flags: [...p.flags],
  };
}
