import type { OutboxEvent } from '../../domain/events.js';
import { queuesFor } from '../../domain/events.js';
import type { QueueMessage, QueueName } from '../../domain/queues.js';
import { CHANGE_MESSAGE_QUEUE, changeMessageBody } from '../../domain/webhooks.js';
import type { EventsPorts } from './ports.js';

/**
 * The event router: outbox events (read from the table's stream) to the queues that consume each type, as the
 * event catalogue (shared/domain/events.ts) says, sent in batches. Standard queues have no deduplication id,
 * so the event id travels in the body and consumers deduplicate on it.
 *
 * Each record is named by its id (the stream sequence number); the events of one outbox item (all those of one
 * committed change, shared/store/stream-events.ts) share their record's id; to `webhook-delivery` they go as one message
 * (CHANGE_MESSAGE_QUEUE in shared/domain/webhooks.ts). The answer is the ids of the records to retry:
 * those whose message a queue did not accept and those that could not be read. The stream mapping retries from
 * the first of them (bisecting, then the on-failure queue), so re-sent events are normal. A type no queue
 * consumes is dropped with a warning.
 */
export type RoutableRecord =
  /** An outbox event and the body the router sends for it (the event with its id, numbers kept as written). */
  | { readonly id: string; readonly event: OutboxEvent; readonly body: string }
  /** An outbox record that could not be read back into an event. */
  | { readonly id: string; readonly unreadable: string };

export async function routeEvents(records: readonly RoutableRecord[], deps: Pick<EventsPorts, 'queue' | 'log'>): Promise<Set<string>> {
  const failures = new Set<string>();
  const byQueue = new Map<QueueName, QueueMessage[]>();
  for (const record of records) {
    if ('unreadable' in record) {
      deps.log.error('unreadable outbox record', { sequence: record.id, error: record.unreadable });
      failures.add(record.id);
      continue;
    }
    const { event } = record;
    const queues = queuesFor(event.type);
    if (queues.length === 0) {
      deps.log.warn('no route for event type', { type: event.type, event_id: event.eventId });
      continue;
    }
    for (const queue of queues) {
      const list = byQueue.get(queue) ?? [];
      list.push({ id: record.id, body: record.body, attributes: { event_type: event.type, tenant_id: event.tenantId, event_id: event.eventId } });
      byQueue.set(queue, list);
    }
  }
  for (const [queue, messages] of byQueue) {
    const sent = queue === CHANGE_MESSAGE_QUEUE ? byChange(messages) : messages;
    for (const id of await deps.queue.sendBatch(queue, sent)) failures.add(id);
  }
  return failures;
}

/**
 * The messages of one record (the events of one committed change) as one message (`changeMessageBody`, in their
 * order), named by the record and carrying the first event's attributes; a record of one event keeps its own message.
 */
function byChange(messages: readonly QueueMessage[]): QueueMessage[] {
  const byRecord = new Map<string, { first: QueueMessage; bodies: string[] }>();
  for (const m of messages) {
    const group = byRecord.get(m.id);
    if (group) group.bodies.push(m.body);
    else byRecord.set(m.id, { first: m, bodies: [m.body] });
  }
  return [...byRecord.values()].map(({ first, bodies }) => (bodies.length === 1 ? first : { ...first, body: changeMessageBody(bodies) }));
}
