import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxEvent } from '../../shared/domain/events.js';
import { db, tableName } from '../../shared/store/client.js';
import { keys, OUTBOX_KEY_PREFIX } from '../../shared/store/keys.js';
import { outboxEventsOfItem } from '../../shared/store/outbox.js';

/** The events of the outbox item named by `eventId` (the first event of its change); empty when none was written. */
export async function outboxChange(eventId: string): Promise<OutboxEvent[]> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(eventId), ConsistentRead: true }));
  return Item ? outboxEventsOfItem(Item) : [];
}

/**
 * Every outbox item whose first event id begins with `prefix` (`payment:<id>:`), each as the events of its change,
 * by a scan of the table (tests only).
 */
export async function outboxChanges(prefix: string): Promise<OutboxEvent[][]> {
  const out: OutboxEvent[][] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': `${OUTBOX_KEY_PREFIX}${prefix}` },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) out.push(outboxEventsOfItem(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * The event `eventId`, wherever its change's outbox item is: the item it names (the first event of its change), or
 * else one of the items of its aggregate (an id `<aggregate>:<id>:<key>`, by a scan); undefined when none.
 */
export async function writtenEvent(eventId: string): Promise<OutboxEvent | undefined> {
  const own = (await outboxChange(eventId)).find((e) => e.eventId === eventId);
  if (own) return own;
  const [aggregate, id] = eventId.split(':');
  if (id === undefined) return undefined;
  return (await outboxChanges(`${aggregate}:${id}:`)).flat().find((e) => e.eventId === eventId);
}

/** The event `eventId` as its message body spells it (`event_id`, `tenant_id`, `type`, `occurred_at`, `payload`, numbers read wrapped). */
export async function outboxRecord(eventId: string): Promise<Record<string, unknown> | undefined> {
  const event = await writtenEvent(eventId);
  return event && { event_id: event.eventId, tenant_id: event.tenantId, type: event.type, occurred_at: event.occurredAt, payload: event.payload };
}
