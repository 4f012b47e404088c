import type { PaymentState } from '../domain/payments.js';
import { stateAttributes, stateOf } from './aggregate.js';

/**
 * A payment's item holds its state as every aggregate does (shared/store/aggregate.ts), deflated against the
 * payment type's preset dictionary: the field names and the values every payment repeats. A payment is then 0.3 to
 * 0.55 KB of state where plain DEFLATE makes it 0.55 to 0.9 KB, so the item stays within one write unit (1 KB) from
 * creation to completion, and so does its copy in the work-queue index.
 *
 * The dictionary can never change once items were written with it: a new one takes a new format byte in
 * aggregate.ts, and this one stays readable.
 */

const TYPE = 'payment';

/**
 * The payment type's preset dictionary, frozen: a payment as JSON with its fields in the order the domain builds
 * them. DEFLATE finds what it repeats from the dictionary's end backwards, so the most common text comes last.
 */
const DICTIONARY = Buffer.from(
  '"orderDescription":null,"callbackUrl":"https://","customId":null,"walletId":null,"customerEmail":null,"successUrl":null,"cancelUrl":null,' +
    '"sweepReference":"sweep:","flags":["late_deposit"],"merchantReceivedUsd":null,"sweepTxHash":"0x","priceAmount":"","priceCurrency":"EUR",' +
    '"currency":"USDCERC20","currency":"USDTTRC20","currency":"USDTBSC","currency":"USDTPOLYGON","network":"TRX","network":"BSC","network":"POLYGON",' +
    '"status":"confirmed","status":"confirming","status":"sending","status":"completed",' +
    '{"id":"","tenantId":"","currency":"USDTERC20","network":"ETH","token":"USDT","decimals":6,"priceAmount":"","priceCurrency":"USD",' +
    '"amountUsd":"","amountCrypto":"","priceCrypto":"","fee":"","feePercent":"1","address":"0x","salt":"0x","isFixedRate":true,' +
    '"isFeePaidByUser":false,"orderId":null,"orderDescription":null,"callbackUrl":null,"customId":null,"walletId":null,"customerEmail":null,' +
    '"checkoutId":"","successUrl":null,"cancelUrl":null,"expiryTime":"","status":"waiting","createdAt":"","updatedAt":"","transactionHash":null,' +
    '"deposits":[{"id":"ETH:0x","currency":"USDTERC20","amount":"","amountBase":"","txHash":"0x","logIndex":0,"blockNumber":0,"blockHash":"0x",' +
    '"confirmations":0,"detectedAt":"","status":"pending","late":false}],"flags":[],"merchantReceived":null,"merchantReceivedUsd":null,' +
    '"sweepTxHash":null,"version":1}',
  'utf8',
);

/** The attributes of a payment's item that hold its state (`type`, `version`, `state`). */
export const paymentStateAttributes = (p: PaymentState) => stateAttributes(TYPE, p, DICTIONARY);

/** The state a payment item holds. */
export const paymentFromItem = (item: Record<string, unknown>): PaymentState => stateOf<PaymentState>(item, TYPE, DICTIONARY);

/** Attributes a read of a payment's state needs (a ProjectionExpression's names). */
export const PAYMENT_STATE_ATTRIBUTES = ['pk', 'sk', 'type', 'state'] as const;
