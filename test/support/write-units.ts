import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/store/client.js';
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

type Input = Record<string, unknown> & { TableName?: string; Key?: Record<string, unknown>; Item?: Record<string, unknown> };

export async function writtenItems(calls: readonly TracedCall[]): Promise<WrittenItem[]> {
  const out: WrittenItem[] = [];
  const add = async (command: string, op: Input, transactional: boolean) => {
    let item = op.Item;
    if (!item && op.Key) item = (await db().send(new GetCommand({ TableName: op.TableName, Key: op.Key, ConsistentRead: true }))).Item;
    const bytes = item ? itemSize(item) : 0;
    const units = command === 'ConditionCheck' ? 0 : (transactional ? 2 : 1) * Math.max(1, Math.ceil(bytes / 1024));
    out.push({ command, sk: String((op.Item ?? op.Key)?.sk ?? ''), bytes, units });
  };
  for (const call of calls) {
    const input = call.input as Input & { TransactItems?: Record<string, Input>[]; RequestItems?: Record<string, Record<string, Input>[]> };
    const command = call.command.replace(/Command$/, '');
    if (command === 'TransactWriteItems') {
      for (const entry of input.TransactItems ?? []) for (const [kind, op] of Object.entries(entry)) await add(kind, op, true);
    } else if (command === 'PutItem' || command === 'UpdateItem' || command === 'DeleteItem') {
      await add(command.replace(/Item$/, ''), input, false);
    } else if (command === 'BatchWriteItem') {
      for (const [TableName, requests] of Object.entries(input.RequestItems ?? {}))
        for (const r of requests) {
          if (r.PutRequest) await add('Put', { TableName, ...r.PutRequest }, false);
          if (r.DeleteRequest) await add('Delete', { TableName, ...r.DeleteRequest }, false);
        }
    }
  }
  return out;
}

export const unitsOf = (items: readonly WrittenItem[]): number => items.reduce((n, i) => n + i.units, 0);
