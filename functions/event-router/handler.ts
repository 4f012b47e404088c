import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { stringify } from 'lossless-json';
import type { QueueName } from '../../infra/definition.js';
import { OUTBOX_KEY_PREFIX } from '../../infra/table.js';
import { queueUrl, sendBatch } from '../../shared/queue/sqs.js';
import type { OutgoingMessage } from '../../shared/queue/sqs.js';
import type { OutboxEvent } from '../../shared/store/outbox.js';
import { outboxEventFromItem } from '../../shared/store/outbox.js';
import { queuesFor } from './routes.js';

/**
 * The event router: DynamoDB stream records of outbox INSERTs (the event source mapping filters them) to
 * the SQS queues that consume each event type (./routes.ts), sent in batches. Standard queues have no
 * deduplication id, so the event id travels in the body and consumers deduplicate on it. A record whose
 * message a queue did not accept is reported in `batchItemFailures` by its sequence number; the mapping
 * retries from there (bisecting, then the on-failure queue), so re-sent events are normal.
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

function eventOf(record: DynamoDBRecord): OutboxEvent | null {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || !image) return null;
  const item = unmarshall(image as Record<string, AttributeValue>, { wrapNumbers: true });
  if (typeof item.pk !== 'string' || !item.pk.startsWith(OUTBOX_KEY_PREFIX)) return null;
  return outboxEventFromItem(item);
}

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const failures = new Set<string>();
  const byQueue = new Map<QueueName, OutgoingMessage[]>();
  for (const record of event.Records) {
    const sequence = record.dynamodb?.SequenceNumber ?? '';
    let outbox: OutboxEvent | null;
    try {
      outbox = eventOf(record);
    } catch (error) {
      console.error(JSON.stringify({ level: 'error', msg: 'unreadable outbox record', sequence, error: (error as Error).message }));
      failures.add(sequence);
      continue;
    }
    if (!outbox) continue;
    const queues = queuesFor(outbox.type);
    if (queues.length === 0) {
      console.warn(JSON.stringify({ level: 'warn', msg: 'no route for event type', type: outbox.type, event_id: outbox.eventId }));
      continue;
    }
    const body = messageBody(outbox);
    for (const queue of queues) {
      const list = byQueue.get(queue) ?? [];
      list.push({ id: sequence, body, attributes: { event_type: outbox.type, tenant_id: outbox.tenantId, event_id: outbox.eventId } });
      byQueue.set(queue, list);
    }
  }
  for (const [queue, messages] of byQueue) {
    const failed = await sendBatch(queueUrl(queue), messages);
    for (const id of failed) failures.add(id);
  }
  return { batchItemFailures: [...failures].map((itemIdentifier) => ({ itemIdentifier })) };
}
