import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { stringify } from 'lossless-json';
import type { OutboxEvent } from '../../shared/domain/events.js';
import { eventsRuntime } from '../../shared/runtime/events.js';
import { sequenceOf, streamBatchWorker } from '../../shared/runtime/worker.js';
import { OUTBOX_KEY_PREFIX } from '../../shared/store/keys.js';
import { outboxEventFromItem } from '../../shared/store/outbox.js';
import type { RoutableRecord } from '../../shared/usecases/events/route-events.js';
import { routeEvents } from '../../shared/usecases/events/route-events.js';

/**
 * The event router's Lambda: DynamoDB stream records of outbox INSERTs (the event source mapping filters them)
 * read back into events, routed by shared/usecases/events/route-events.ts; records to retry are answered by
 * sequence number.
 */

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

/** An outbox INSERT as a routable record; null for any other record. */
function routable(record: DynamoDBRecord): RoutableRecord | null {
  const id = sequenceOf(record);
  try {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) return null;
    const item = unmarshall(image as Record<string, AttributeValue>, { wrapNumbers: true });
    if (typeof item.pk !== 'string' || !item.pk.startsWith(OUTBOX_KEY_PREFIX)) return null;
    const event = outboxEventFromItem(item);
    return { id, event, body: messageBody(event) };
  } catch (error) {
    return { id, unreadable: (error as Error).message };
  }
}

const deps = eventsRuntime();

export const handler = streamBatchWorker('event-router', (records, log) =>
  routeEvents(
    records.map(routable).filter((r): r is RoutableRecord => r !== null),
    { ...deps, log },
  ),
);
