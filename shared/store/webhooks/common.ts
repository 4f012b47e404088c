import * as z from 'zod';
import type { SecurityEvent, SecurityEventLog } from '../../usecases/webhooks/ports.js';
import { outboxEvent, outboxPutItem } from '../outbox.js';
import type { TransactItem } from '../transact.js';
import { transactWrite } from '../transact.js';
import { integer } from '../values.js';

/** What the webhook repositories share: item readers, TTLs and the security event written with a change. */

export const ttlAfterDays = (now: Date, days: number): number => Math.floor(now.getTime() / 1000) + days * 86400;

/** A stored counter (a NumberValue, since numbers are read wrapped); absent is 0. */
export const storedInteger = z.unknown().transform((value) => integer(value));
/** A text attribute that may be absent or null. */
export const optionalText = z
  .string()
  .nullish()
  .transform((value) => value ?? null);

/** The attributes naming a delivery and its event, on delivery and attempt-log items alike. */
export const deliveryRefFields = {
  tenant_id: z.string(),
  delivery_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  webhook_id: z.string(),
};

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
