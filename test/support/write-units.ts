import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/store/client.js';
import { itemWrites } from '../../shared/store/call-trace.js';
import type { TracedCall } from '../../shared/store/call-trace.js';
import { itemSize } from '../../shared/store/item-size.js';

/**
 * The write request units of traced table calls, counted item by item as DynamoDB bills them (DynamoDB Local answers
 * 2 units for a TransactWriteItems whatever its items): 1 unit per started KB of an item written alone, 2 inside a
 * transaction; a condition check writes nothing. An item's size is that of its attribute names and values; a put's
 * item is its input, an update's or a delete's the item as it is when counted (after the work: the size the update
 * left). Base table only: the index writes come on top.
 */
export interface WrittenItem {
  readonly command: string;
  readonly sk: string;
  readonly bytes: number;
  readonly units: number;
}

export async function writtenItems(calls: readonly TracedCall[]): Promise<WrittenItem[]> {
  const out: WrittenItem[] = [];
  for (const call of calls)
    for (const w of itemWrites(call.command, call.input)) {
      const item = w.item ?? (await db().send(new GetCommand({ TableName: w.table, Key: w.key, ConsistentRead: true }))).Item;
      const bytes = item ? itemSize(item) : 0;
      const units = w.kind === 'ConditionCheck' ? 0 : (w.transactional ? 2 : 1) * Math.max(1, Math.ceil(bytes / 1024));
      out.push({ command: w.kind, sk: String(w.key.sk ?? ''), bytes, units });
    }
  return out;
}

export const unitsOf = (items: readonly WrittenItem[]): number => items.reduce((n, i) => n + i.units, 0);
