import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { SecurityEvent, SecurityEventLog } from '../../usecases/webhooks/ports.js';
import { outboxEvent, outboxPutItem } from '../outbox.js';
import type { TransactItem } from '../transact.js';
import { transactWrite } from '../transact.js';
import { integer } from '../values.js';
import { packText, unpackText } from '../packed.js';

/** What the webhook repositories share: item readers, TTLs and the security event written with a change. */

export const ttlAfterDays = (now: Date, days: number): number => Math.floor(now.getTime() / 1000) + days * 86400;

/** A stored counter (a NumberValue, since numbers are read wrapped); absent is 0. */
export const storedInteger = lazySchema(() => z.unknown().transform((value) => integer(value)));
/** A text attribute that may be absent or null. */
export const optionalText = lazySchema(() =>
  z
    .string()
    .nullish()
    .transform((value) => value ?? null),
);

/**
 * The attributes naming a delivery and its event, on delivery and attempt-log items alike. The delivery id is read
 * from the item's sk (items written before it was left out hold `delivery_id` too); `webhook_id` is stored only when
 * it differs from the event id (a redelivery keeps its original's).
 */
export const deliveryRefFields = () => ({
  sk: z.string(),
  tenant_id: z.string(),
  delivery_id: z.string().optional(),
  event_id: z.string(),
  event_type: z.string(),
  webhook_id: z.string().optional(),
});

/** The stored form of `webhook_id`: absent when it is the event id. */
export const webhookIdAttribute = (webhookId: string, eventId: string): { webhook_id?: string } => (webhookId === eventId ? {} : { webhook_id: webhookId });

/**
 * The preset dictionary of request bodies, frozen (shared/store/packed.ts: it can never change once items were
 * written with it): the envelopes and the field names and values a payment's webhooks repeat, the most common last.
 * A payment's `payment_status_update` body of 850 bytes packs to 180 (400 with plain DEFLATE).
 */
const BODY_DICTIONARY = Buffer.from(
  '{"id":"","event":"payment.completed","created_at":"2026-","data":{"withdrawal_id":"","refund_id":"","wallet_id":null,"custom_id":null,' +
    '"order_description":null,"status":"completed","status":"sending","status":"confirmed","event":"payment.processing","flags":["late_deposit"],' +
    '"merchant_received":"","merchant_received_usd":"","sweep_tx_hash":"0x","currency":"USDTTRC20","currency":"USDTBSC","currency":"USDTPOLYGON",' +
    '"blockchain_network":"TRX","blockchain_network":"POLYGON","blockchain_network":"BSC",' +
    '{"event":"deposit_received","data":{"transaction_id":"","deposit_id":"ETH:0x","amount":"","currency":"USDTERC20","transaction_hash":"0x",' +
    '"confirmations":1,"blockchain_network":"ETH","token":"USDT","timestamp":"2026-","late":false,"wrong_currency":false},"timestamp":"2026-"}' +
    '{"event":"payment_status_update","data":{"transaction_id":"","status":"confirming","previous_status":"waiting","payment_type":"full",' +
    '"order_id":null,"price_amount":"","price_currency":"USD","pay_amount":"","pay_currency":"USDTERC20","blockchain_address":"0x",' +
    '"transaction_hash":"0x","confirmations":1,"merchant_received_usd":null,"payment_history":[{"deposit_id":"ETH:0x","amount":"",' +
    '"transaction_hash":"0x","confirmations":1,"timestamp":"2026-"}],"flags":[],"metadata":{"updated_at":"2026-"}},"timestamp":"2026-',
  'utf8',
);

/**
 * A request body as stored: packed against BODY_DICTIONARY (a body is most of a delivery or attempt-log item, and
 * packed it keeps a payment's under the 1 KB of one write unit). Items written before hold the text.
 */
export const packBody = (body: string): Buffer => packText(body, BODY_DICTIONARY);
export const storedBody = lazySchema(() =>
  z.union([z.string(), z.instanceof(Uint8Array)]).transform((value) => (typeof value === 'string' ? value : unpackText(value, BODY_DICTIONARY))),
);

/** The outbox item of a security event, to commit in the change's transaction. */
export function securityEventItem(event: SecurityEvent): TransactItem {
  return outboxPutItem(outboxEvent(event.tenantId, event.type, event.payload, { now: event.at }));
}

/** Security events written on their own (the event is the whole change). */
export const outboxSecurityEvents: SecurityEventLog = {
  async record(event) {
    await transactWrite([securityEventItem(event)]);
  },
};
