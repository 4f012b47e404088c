import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { PaymentState } from '../domain/payments.js';
import type { PaymentEventRef } from '../domain/payment-events.js';
import { stateOf } from './aggregate.js';

/**
 * How a payment's item holds its state and the events of the change that wrote it: `packed`, one binary value,
 * a format byte then the raw DEFLATE of `{"state":…,"events":[…]}` compressed against a preset dictionary (the
 * field names and the values every payment repeats). A payment is then 0.3 to 0.55 KB of state where plain DEFLATE
 * made it 0.55 to 0.9 KB, and its events add a few dozen bytes instead of 0.4 KB, since they repeat the state's
 * own hashes and ids. The item stays within one write unit (1 KB) from creation to completion, and so does its copy
 * in the work-queue index.
 *
 * A dictionary can never change once items were written with it: a new one takes a new format byte, and the old
 * stays readable. Items written before (`state` as plain DEFLATE or JSON text, `events` beside it) are still read.
 */

/** Format 1: raw DEFLATE against DICTIONARY_1. */
const FORMAT_1 = 1;

/**
 * The preset dictionary of format 1, frozen: a payment as JSON with its fields in the order the domain builds them,
 * then the references of its events. DEFLATE finds what it repeats from the dictionary's end backwards, so the
 * most common text comes last.
 */
const DICTIONARY_1 = Buffer.from(
  '"orderDescription":null,"callbackUrl":"https://","customId":null,"walletId":null,"customerEmail":null,"successUrl":null,"cancelUrl":null,' +
    '"sweepReference":"sweep:","flags":["late_deposit"],"merchantReceivedUsd":null,"sweepTxHash":"0x","priceAmount":"","priceCurrency":"EUR",' +
    '"currency":"USDCERC20","currency":"USDTTRC20","currency":"USDTBSC","currency":"USDTPOLYGON","network":"TRX","network":"BSC","network":"POLYGON",' +
    '{"state":{"id":"","tenantId":"","currency":"USDTERC20","network":"ETH","token":"USDT","decimals":6,"priceAmount":"","priceCurrency":"USD",' +
    '"amountUsd":"","amountCrypto":"","priceCrypto":"","fee":"","feePercent":"1","address":"0x","salt":"0x","isFixedRate":true,' +
    '"isFeePaidByUser":false,"orderId":null,"orderDescription":null,"callbackUrl":null,"customId":null,"walletId":null,"customerEmail":null,' +
    '"checkoutId":"","successUrl":null,"cancelUrl":null,"expiryTime":"","status":"waiting","createdAt":"","updatedAt":"","transactionHash":null,' +
    '"deposits":[{"id":"ETH:0x","currency":"USDTERC20","amount":"","amountBase":"","txHash":"0x","logIndex":0,"blockNumber":0,"blockHash":"0x",' +
    '"confirmations":0,"detectedAt":"","status":"pending","late":false}],"flags":[],"merchantReceived":null,"merchantReceivedUsd":null,' +
    '"sweepTxHash":null,"version":1},"events":[{"type":"deposit_received","key":"deposit:","deposit":""},' +
    '{"type":"payment_status_update","key":"status:","status":"confirmed","previous":"confirming"},' +
    '{"type":"payment.processing","key":"payment.processing:","status":"completed","previous":"sending"}]}',
  'utf8',
);

interface Packed {
  readonly state: PaymentState;
  readonly events?: readonly PaymentEventRef[];
}

/** The `packed` value of a payment and the events of the change writing it. */
export function packPayment(state: PaymentState, events: readonly PaymentEventRef[]): Uint8Array {
  const body: Packed = events.length > 0 ? { state, events } : { state };
  const deflated = deflateRawSync(Buffer.from(JSON.stringify(body), 'utf8'), { level: 9, dictionary: DICTIONARY_1 });
  const out = Buffer.allocUnsafe(deflated.length + 1);
  out[0] = FORMAT_1;
  deflated.copy(out, 1);
  return out;
}

function unpack(packed: Uint8Array): Packed {
  if (packed[0] !== FORMAT_1) throw new TypeError(`Unknown packed payment format ${packed[0]}`);
  return JSON.parse(inflateRawSync(packed.subarray(1), { dictionary: DICTIONARY_1 }).toString('utf8')) as Packed;
}

const TYPE = 'payment';

/** The state a payment item holds and the references of the events its write carried (null: another item), in either form. */
export function paymentWithEvents(item: Record<string, unknown>): { readonly state: PaymentState; readonly events: readonly PaymentEventRef[] } | null {
  if (item.type !== TYPE) return null;
  if (item.packed instanceof Uint8Array) {
    const { state, events } = unpack(item.packed);
    return { state, events: events ?? [] };
  }
  return { state: stateOf<PaymentState>(item, TYPE), events: Array.isArray(item.events) ? (item.events as PaymentEventRef[]) : [] };
}

/** The state a payment item holds. */
export function paymentFromItem(item: Record<string, unknown>): PaymentState {
  const written = paymentWithEvents(item);
  if (!written) throw new TypeError(`Not a ${TYPE} item`);
  return written.state;
}

/** Attributes a read of a payment's state needs (a ProjectionExpression's names). */
export const PAYMENT_STATE_ATTRIBUTES = ['pk', 'sk', 'type', 'state', 'packed', 'events'] as const;
