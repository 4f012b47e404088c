/**
 * The write request units DynamoDB would bill for a stretch of table writes, item by item, from each written item's
 * images before and after the write (read around it, strongly consistent, by a client of its own that nothing
 * meters or traces). DynamoDB Local cannot tell them: it answers 2 units for a TransactWriteItems whatever its items,
 * with the index units of one of them.
 *
 * Per item (on-demand, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
 * - the table: one unit per started KB of the larger of its two images, twice inside a transaction; a failed
 *   conditional write alone still one unit; a ConditionCheck of a transaction counted as a transactional write of
 *   the item it checks (an upper bound: the item is read, not written);
 * - each global secondary index (ALL projection): one unit per started KB of the image the index gets when the item
 *   enters it, is rewritten in it, or leaves it; two writes (a delete and a put) when its key changes; nothing when
 *   the write left the item as it was. Index writes are counted once, transaction or not (they are applied after
 *   the commit, outside it).
 *
 * The extra reads make the writes slower: the cost bench runs it on lifecycles of their own, after the timed ones.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { isDeepStrictEqual } from 'node:util';
import { TABLE } from '../infra/table.js';
import { db } from '../shared/store/client.js';
import { config } from '../shared/config/config.js';
import { itemSize } from '../shared/store/item-size.js';
import { itemWrites } from '../shared/store/call-trace.js';
import type { ItemWrite } from '../shared/store/call-trace.js';

export interface BilledUnits {
  table: number;
  indexes: number;
}

export interface BilledWrites extends BilledUnits {
  /** By the kind of item: its sk up to the first `#` or `|` (`pk` where the sk is the bare kind). */
  readonly byKind: Readonly<Record<string, BilledUnits>>;
}

export interface WriteBilling {
  totals(): BilledWrites;
  stop(): void;
}

type Item = Record<string, unknown>;

const NAME = 'gatewayWriteBilling';
const KB = 1024;
const started = (bytes: number): number => Math.max(1, Math.ceil(bytes / KB));

function kindOf(key: Item): string {
  const sk = String(key[TABLE.sortKey] ?? '');
  const pk = String(key[TABLE.partitionKey] ?? '?');
  return sk.split(/[#|]/)[0] || pk.split(/[#|]/)[0] || '?';
}

/** The units of one item's write, from its images (undefined: no item). */
export function unitsOfWrite(op: Pick<ItemWrite, 'kind' | 'transactional'>, before: Item | undefined, after: Item | undefined, failed = false): BilledUnits {
  const bytes = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
  const table = started(bytes) * (op.transactional ? 2 : 1);
  if (failed || op.kind === 'ConditionCheck' || isDeepStrictEqual(before, after)) return { table, indexes: 0 };
  let indexes = 0;
  for (const index of TABLE.indexes) {
    const keyIn = (image: Item | undefined) => (image && image[index.partitionKey] !== undefined && image[index.sortKey] !== undefined ? image : undefined);
    const was = keyIn(before);
    const is = keyIn(after);
    if (was && is) {
      const moved = was[index.partitionKey] !== is[index.partitionKey] || was[index.sortKey] !== is[index.sortKey];
      indexes += moved ? started(itemSize(was)) + started(itemSize(is)) : started(itemSize(is));
    } else if (was || is) indexes += started(itemSize((was ?? is) as Item));
  }
  return { table, indexes };
}

/**
 * Bills every write of the document client `client` (default: the current `db()`) from then on. Reads the written
 * items around each write with a client of its own.
 */
export function billWrites(client: DynamoDBDocumentClient = db()): WriteBilling {
  const reader = DynamoDBDocumentClient.from(new DynamoDBClient({ region: config().AWS_REGION }), { unmarshallOptions: { wrapNumbers: true } });
  const byKind: Record<string, BilledUnits> = {};
  const add = (key: Item, units: BilledUnits): void => {
    const row = (byKind[kindOf(key)] ??= { table: 0, indexes: 0 });
    row.table += units.table;
    row.indexes += units.indexes;
  };
  const images = (ops: readonly ItemWrite[]) =>
    Promise.all(
      ops.map(async (op) => (await reader.send(new GetCommand({ TableName: op.table, Key: op.key, ConsistentRead: true }))).Item as Item | undefined),
    );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const ops = itemWrites(context.commandName ?? '', args.input as Item);
      if (ops.length === 0) return next(args);
      const before = await images(ops);
      try {
        const result = await next(args);
        const after = await images(ops);
        ops.forEach((op, i) => add(op.key, unitsOfWrite(op, before[i], after[i])));
        return result;
      } catch (error) {
        // A conditional write refused alone still consumes its unit; a cancelled transaction is not counted.
        const op = ops[0];
        if (ops.length === 1 && op && !op.transactional) add(op.key, unitsOfWrite(op, before[0], before[0], true));
        throw error;
      }
    },
    { step: 'initialize', name: NAME, override: true },
  );
  return {
    totals: () => {
      const rows = Object.values(byKind);
      return {
        table: rows.reduce((n, r) => n + r.table, 0),
        indexes: rows.reduce((n, r) => n + r.indexes, 0),
        byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, { ...v }])),
      };
    },
    stop: () => {
      client.middlewareStack.remove(NAME);
      reader.destroy();
    },
  };
}
