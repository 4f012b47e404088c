import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { stringify } from 'lossless-json';
import type { EventPayload, EventType, OutboxEvent, OutboxPayload } from '../domain/events.js';
import { parseEventPayload } from '../domain/events.js';
import { tableName } from './client.js';
import { keys, OUTBOX_KEY_PREFIX } from './keys.js';
import type { TransactItem } from './transact.js';

/**
 * The outbox. Every change others must hear of writes one outbox item per announced event in the SAME
 * TransactWriteItems as the change, so an event exists exactly when its change committed. The table's
 * stream (filtered to `OUTBOX#` keys) feeds the event router, which fans the events out to SQS.
 *
 * Item: `pk = OUTBOX#<event id>`, `sk = OUTBOX`, `event_id`, `tenant_id`, `type` (the event type), `occurred_at` (ISO 8601),
 * `payload` (a map), `ttl` (epoch seconds; the stream keeps records 24 h, the item lives a few days for
 * inspection). Payload values must be JSON-like: strings (amounts are decimal strings), booleans, null,
 * safe integers, arrays and maps; they are written as they are and the router forwards them exactly.
 */

export const OUTBOX_TTL_SECONDS = 3 * 24 * 3600;

export type { OutboxEvent, OutboxPayload };

export interface OutboxEventOptions {
  readonly now?: Date;
  /** The caller's natural id (a replayed change then writes the same event, refused by the put's condition). */
  readonly eventId?: string;
}

/**
 * A new event of a catalogue type (shared/domain/events.ts): the payload is checked against the type's schema
 * by the compiler and again here, so a producer cannot write an event its consumers would refuse.
 * `emit(tenantId, EVENTS.chainTxRequested, { request_id, network, reference, purpose })`.
 */
export function emit<T extends EventType>(tenantId: string, type: T, payload: EventPayload<T>, options: OutboxEventOptions = {}): OutboxEvent<EventPayload<T>> {
  parseEventPayload(type, payload);
  return outboxEvent(tenantId, type, payload, options);
}

/**
 * A new event with a fresh id (or the caller's natural id, which makes a replayed change reuse it). Unchecked:
 * producers move to `emit`, which checks the payload against the event catalogue.
 */
export function outboxEvent<P extends OutboxPayload>(tenantId: string, type: string, payload: P, options: OutboxEventOptions = {}): OutboxEvent<P> {
  return {
    eventId: options.eventId ?? randomUUID(),
    tenantId,
    type,
    occurredAt: (options.now ?? new Date()).toISOString(),
    payload,
  };
}

/** The transaction item that writes an event; fails (condition) if the event id was already written. */
export function outboxPutItem(event: OutboxEvent): TransactItem {
  assertPayload(event.payload, 'payload');
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.outbox(event.eventId),
        event_id: event.eventId,
        tenant_id: event.tenantId,
        type: event.type,
        occurred_at: event.occurredAt,
        payload: event.payload,
        ttl: Math.floor(Date.parse(event.occurredAt) / 1000) + OUTBOX_TTL_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Reads an outbox item (unmarshalled, numbers wrapped) back into an event. */
export function outboxEventFromItem(item: Record<string, unknown>): OutboxEvent {
  const { event_id: eventId, tenant_id: tenantId, type, occurred_at: occurredAt, payload } = item;
  if (typeof eventId !== 'string' || typeof tenantId !== 'string' || typeof type !== 'string' || typeof occurredAt !== 'string') {
    throw new TypeError('Not an outbox item');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new TypeError('Outbox item without a payload map');
  return { eventId, tenantId, type, occurredAt, payload: payload as OutboxPayload };
}

function assertPayload(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || value instanceof NumberValue) return;
  if (typeof value === 'number') {
    // Amounts never travel as floats: only counters and timestamps may be numbers.
    if (!Number.isSafeInteger(value)) throw new TypeError(`${path}: only safe integers may be numbers; send amounts as decimal strings`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertPayload(v, `${path}[${i}]`));
    return;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) if (v !== undefined) assertPayload(v, `${path}.${k}`);
    return;
  }
  throw new TypeError(`${path}: not a JSON-like value`);
}

const numberStringifiers = [{ test: (v: unknown) => v instanceof NumberValue, stringify: (v: unknown) => (v as NumberValue).toString() }];

/** The message body: the event with its id, exactly as written (numbers keep their text). */
export function messageBody(event: OutboxEvent): string {
  return (
    stringify(
      { event_id: event.eventId, tenant_id: event.tenantId, type: event.type, occurred_at: event.occurredAt, payload: event.payload },
      null,
      undefined,
      numberStringifiers,
    ) ?? '{}'
  );
}

/** An outbox item's stream image (numbers wrapped) as its event; null for an image of another item. */
export function outboxEventFromImage(image: Record<string, AttributeValue>): OutboxEvent | null {
  const item = unmarshall(image, { wrapNumbers: true });
  if (typeof item.pk !== 'string' || !item.pk.startsWith(OUTBOX_KEY_PREFIX)) return null;
  return outboxEventFromItem(item);
}
