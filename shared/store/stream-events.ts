import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { OutboxEvent } from '../domain/events.js';
import { walletBalanceChangedEvent } from '../domain/wallets.js';
import type { RoutableRecord } from '../usecases/events/route-events.js';
import { walletBalanceChangeFromImage } from './balance-stream.js';
import { OUTBOX_KEY_PREFIX } from './keys.js';
import { messageBody, outboxEventsOfItem } from './outbox.js';

/**
 * What the event router reads from the table's stream (infra/table.ts ROUTED_RECORDS says which records reach
 * it): new outbox items (one per committed change, holding its events) and wallet balance rows.
 */

/**
 * A Lambda stream image as the SDK reads items: binary values arrive as base64 text in the event's JSON, and
 * `unmarshall` would leave them text.
 */
function sdkImage(image: Record<string, AttributeValue>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(image)) {
    const binary = (value as { B?: unknown }).B;
    out[name] = typeof binary === 'string' ? { B: Buffer.from(binary, 'base64') } : value;
  }
  return out;
}

/**
 * The events of an outbox item's stream image (numbers wrapped); null for an image of another item. Here, not in
 * outbox.ts, which the API bundles import: `@aws-sdk/util-dynamodb` stays out of their cold start.
 */
function outboxEventsOfImage(image: Record<string, AttributeValue>): OutboxEvent[] | null {
  const item = unmarshall(image, { wrapNumbers: true });
  if (typeof item.pk !== 'string' || !item.pk.startsWith(OUTBOX_KEY_PREFIX)) return null;
  return outboxEventsOfItem(item);
}

/**
 * The events a stream record tells: those of a new outbox item (shared/store/outbox.ts), in the order its change
 * announced them, or a change of a wallet's balance row as its `wallet.balance_changed`; none for others.
 */
function eventsOfRecord(record: DynamoDBRecord): OutboxEvent[] {
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (!image || (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY')) return [];
  if (record.eventName === 'INSERT') {
    const events = outboxEventsOfImage(sdkImage(image));
    if (events) return events;
  }
  const change = walletBalanceChangeFromImage(image);
  return change ? [walletBalanceChangedEvent(change)] : [];
}

/**
 * A table stream record as the event router reads it: each event it tells (eventsOfRecord) with its message body,
 * all named by the record's id; a record that cannot be read back as one unreadable entry (retried, then sent to
 * the failure queue); nothing for a record that tells no event.
 */
export function routableRecords(record: DynamoDBRecord, id: string): RoutableRecord[] {
  try {
    return eventsOfRecord(record).map((event) => ({ id, event, body: messageBody(event) }));
  } catch (error) {
    return [{ id, unreadable: (error as Error).message }];
  }
}
