import { randomUUID } from 'node:crypto';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { parse, stringify } from 'lossless-json';
import type { EventPayload, EventType, OutboxEvent, OutboxPayload } from '../domain/events.js';
import { parseEventPayload } from '../domain/events.js';
import { tableName } from './client.js';
import { keys } from './keys.js';
import { packText, unpackText } from './packed.js';
import type { TransactItem } from './transact.js';

/**
 * The outbox. Every change others must hear of writes ONE outbox item, holding all the events it announces, in the
 * SAME TransactWriteItems as the change, so its events exist exactly when the change committed. The table's stream
 * (filtered to INSERTs of `OUTBOX#` keys, infra/table.ts ROUTED_RECORDS) feeds the event router, which expands the
 * item into its events and fans them out to SQS (shared/store/stream-events.ts).
 *
 * Item: `pk = OUTBOX#<id of its first event>`, `sk = OUTBOX`, `type = outbox`, `events` (binary: the JSON list of the
 * events packed as shared/store/packed.ts packs, without a dictionary, each `{event_id, tenant_id, type, occurred_at, payload}` as
 * its message body reads), `ttl` (epoch seconds; the stream keeps records 24 h, the item lives a few days for
 * inspection). Each event keeps its own id (consumers deduplicate on it); a replayed change writes the same first
 * event id, so its item is refused by the put's condition. Payload values must be JSON-like: strings (amounts are
 * decimal strings), booleans, null, safe integers (or numbers read wrapped), arrays and maps; numbers keep their
 * text through the JSON (lossless-json) and the router forwards them exactly.
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

/** The transaction item that writes one event as a change of its own (`outboxChangeItem([event])`). */
export function outboxPutItem(event: OutboxEvent): TransactItem {
  return outboxChangeItem([event]);
}

/**
 * The transaction item that writes the events of one change (at least one), named by the first; fails
 * (condition) if that change was already written.
 */
export function outboxChangeItem(events: readonly OutboxEvent[]): TransactItem {
  return { Put: { TableName: tableName(), Item: outboxItemOf(events), ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** The outbox item holding the events of one change (at least one), named by the first. */
export function outboxItemOf(events: readonly OutboxEvent[]): Record<string, unknown> {
  const [first] = events;
  if (!first) throw new RangeError('An outbox item holds at least one event');
  events.forEach((e, i) => assertPayload(e.payload, `events[${i}].payload`));
  const json = stringify(events.map(messageShape), null, undefined, numberStringifiers) ?? '[]';
  return {
    ...keys.outbox(first.eventId),
    type: OUTBOX_TYPE,
    events: packText(json),
    ttl: Math.floor(Date.parse(first.occurredAt) / 1000) + OUTBOX_TTL_SECONDS,
  };
}

const OUTBOX_TYPE = 'outbox';

/** Numbers read back wrapped, as the table's other numbers are (shared/store/client.ts): their text stays exact. */
const wrapped = (text: string): NumberValue => new NumberValue(text);

/** The events an outbox item (unmarshalled) holds, in the order the change announced them. */
export function outboxEventsOfItem(item: Record<string, unknown>): OutboxEvent[] {
  const packed = item.events;
  if (item.type !== OUTBOX_TYPE || !(packed instanceof Uint8Array)) throw new TypeError('Not an outbox item');
  const list = parse(unpackText(packed), null, wrapped);
  if (!Array.isArray(list) || list.length === 0) throw new TypeError('Outbox item without events');
  return list.map(eventOf);
}

/** The event an outbox item is named by (its first): the item of a one-event change is that event. */
export function outboxEventFromItem(item: Record<string, unknown>): OutboxEvent {
  const [first] = outboxEventsOfItem(item);
  if (!first) throw new TypeError('Outbox item without events');
  return first;
}

function eventOf(value: unknown): OutboxEvent {
  const { event_id: eventId, tenant_id: tenantId, type, occurred_at: occurredAt, payload } = (value ?? {}) as Record<string, unknown>;
  if (typeof eventId !== 'string' || typeof tenantId !== 'string' || typeof type !== 'string' || typeof occurredAt !== 'string') {
    throw new TypeError('Not an outbox event');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new TypeError('Outbox event without a payload map');
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

/** An event as its message body and its outbox item spell it. */
const messageShape = (event: OutboxEvent) => ({
  event_id: event.eventId,
  tenant_id: event.tenantId,
  type: event.type,
  occurred_at: event.occurredAt,
  payload: event.payload,
});

/** The message body: the event with its id, exactly as written (numbers keep their text). */
export function messageBody(event: OutboxEvent): string {
  return stringify(messageShape(event), null, undefined, numberStringifiers) ?? '{}';
}
