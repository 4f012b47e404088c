import { randomInt } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../domain/errors.js';
import type { EntryDraft } from '../domain/ledger.js';
import type { Decimal } from '../domain/money.js';
import { add } from '../domain/money.js';
import { db, queryAll, tableName } from './client.js';
import { ExtraItemConditionError, postEntry } from './ledger.js';
import type { TransactionRecord } from '../domain/transactions.js';
import type { Key } from './keys.js';
import type { OutboxEvent } from './outbox.js';
import { outboxEvent, outboxPutItem } from './outbox.js';
import type { TransactItem } from './transact.js';
import { TransactionConditionError, transactWrite } from './transact.js';
import { historyItems } from './transactions.js';
import { decimalText, storedDecimal } from './values.js';

/**
 * One way to store a versioned aggregate (a payment, a withdrawal): the whole state as JSON text (`state`: every
 * amount a decimal string inside it, so nothing passes through a float) beside the attributes its indexes and
 * filters read. The repository alone bumps the version: every save is a put conditioned on the version read
 * (or on absence, for a creation) and stores the next one.
 */

export interface Versioned {
  readonly version: number;
}

/** The conditions a versioned put may carry, by name. */
export const CONDITIONS = {
  /** A creation: nothing stored under the key yet. */
  absent: { ConditionExpression: 'attribute_not_exists(pk)' },
  /** A change: the stored version is still the one read. */
  version: (expected: number) => ({
    ConditionExpression: '#v = :v',
    ExpressionAttributeNames: { '#v': 'version' },
    ExpressionAttributeValues: { ':v': expected },
  }),
} as const;

/** The state as it will be stored: version 1 for a creation, else the version read plus one. */
export const nextVersion = <S extends Versioned>(state: S, expected: number | null): S => ({ ...state, version: expected === null ? 1 : expected + 1 });

/** Put of an aggregate item (built by the repository from the saved state), conditioned by `expected`. */
export function versionedPut(item: Record<string, unknown>, expected: number | null): TransactItem {
  return { Put: { TableName: tableName(), Item: item, ...(expected === null ? CONDITIONS.absent : CONDITIONS.version(expected)) } };
}

/**
 * The attributes every versioned aggregate item carries: its state, version and type. The state is JSON,
 * deflated (binary): a payment's 1.5 KB of JSON is about 0.75 KB stored, which keeps its item, written on every
 * change and copied to its indexes, within 2 KB (one write unit per KB).
 */
export const stateAttributes = <S extends Versioned>(type: string, state: S) => ({
  type,
  version: state.version,
  state: deflateRawSync(Buffer.from(JSON.stringify(state)), { level: 6 }),
});

/** The state of an aggregate item: deflated JSON (binary), or JSON text as items were first stored. */
export function stateOf<S>(item: Record<string, unknown>, type: string): S {
  const stored = item.state;
  if (item.type !== type || (typeof stored !== 'string' && !(stored instanceof Uint8Array))) throw new TypeError(`Not a ${type} item`);
  if (stored instanceof Uint8Array) return JSON.parse(inflateRawSync(stored).toString('utf8')) as S;
  return JSON.parse(stored) as S;
}

/** Reads an aggregate, strongly consistent; `decode` for one stored in a form of its own (payments). */
export async function loadState<S>(key: Key, type: string, decode: (item: Record<string, unknown>) => S = (item) => stateOf<S>(item, type)): Promise<S | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item ? decode(Item) : null;
}

export interface AggregateEvent {
  readonly type: string;
  /** Natural key of the event within its aggregate: a replayed change writes the same event id. */
  readonly key: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** The outbox events of a change, with natural ids `<aggregate>:<id>:<key>`, each payload carrying `extra`. */
export function aggregateOutbox(
  aggregate: { readonly type: string; readonly id: string; readonly tenantId: string },
  events: readonly AggregateEvent[],
  extra: Readonly<Record<string, unknown>>,
  now: Date,
): OutboxEvent[] {
  return events.map((e) => outboxEvent(aggregate.tenantId, e.type, { ...e.payload, ...extra }, { now, eventId: `${aggregate.type}:${aggregate.id}:${e.key}` }));
}

export const outboxItems = (events: readonly OutboxEvent[]): TransactItem[] => events.map(outboxPutItem);

/** The attribute of a day-total item (`dayTotalItem`) that holds the total. */
export const DAY_TOTAL_ATTRIBUTE = 'total_usd';

/**
 * Adds `amountUsd` to a tenant's total of the day, conditioned so the total stays within `limit` (the caller has
 * checked that the amount alone fits). Kept three days.
 */
export function dayTotalItem(key: Key, amountUsd: Decimal, room: Decimal, now: Date): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD #t :a SET #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#t) OR #t <= :room',
      ExpressionAttributeNames: { '#t': DAY_TOTAL_ATTRIBUTE, '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':a': storedDecimal(amountUsd), ':room': storedDecimal(room), ':ttl': Math.floor(now.getTime() / 1000) + 3 * 86400 },
    },
  };
}

/**
 * A per-tenant counter (payments created, their volume, withdrawals created), sharded: each change adds to a
 * random shard and reads sum them, so concurrent changes of one tenant do not conflict on one item. Amounts are
 * exact DynamoDB Numbers (decimal, 38 digits).
 */
export const COUNTER_SHARDS = 8;

export function counterItem(shardKey: (shard: number) => Key, adds: Readonly<Record<string, Decimal>>): TransactItem {
  const fields = Object.entries(adds);
  return {
    Update: {
      TableName: tableName(),
      Key: shardKey(randomInt(COUNTER_SHARDS)),
      UpdateExpression: `ADD ${fields.map((_, i) => `#f${i} :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, storedDecimal(value)])),
    },
  };
}

/** The sums of a counter's fields over its shards (0 for a field never added to). */
export async function readCounter<F extends string>(prefix: { pk: string; skPrefix: string }, fields: readonly F[]): Promise<Record<F, Decimal>> {
  const shards = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': prefix.pk, ':p': prefix.skPrefix },
    ConsistentRead: true,
  });
  const sums = Object.fromEntries(fields.map((f) => [f, '0'])) as Record<F, Decimal>;
  for (const shard of shards) for (const f of fields) if (shard[f] !== undefined) sums[f] = add(sums[f], decimalText(shard[f]));
  return sums;
}

export interface AggregateWrite {
  /** Names the aggregate in errors: `payment`, `withdrawal`. */
  readonly type: string;
  readonly id: string;
  readonly tenantId: string;
  /** The aggregate's versioned put (`versionedPut`). */
  readonly put: TransactItem;
  readonly outbox: readonly OutboxEvent[];
  /** Other writes of the same change: their conditions refuse it together (`refused` names why). */
  readonly items?: readonly TransactItem[];
  /** A ledger entry committed with the change (balances conditioned never to go below zero). */
  readonly entry?: { readonly entryId: string; readonly entry: EntryDraft };
  /**
   * The movement's transaction-history record before (null: new) and after the change: the record and the
   * statistics counters' delta are written with it (shared/store/transactions.ts).
   */
  readonly history?: { readonly previous: TransactionRecord | null; readonly next: TransactionRecord };
  readonly now: Date;
}

/**
 * Commits a change of an aggregate in ONE transaction: its put, its events, its other items and its ledger entry.
 * The put's condition failing is a ConflictError (it moved meanwhile: re-read and retry); another item's is what
 * `refused(index in items)` says (it may read the table to tell why); the ledger's own refusals (InsufficientBalanceError, DuplicateEntryError) pass.
 */
export async function commitAggregate(
  write: AggregateWrite,
  refused: (index: number) => Error | Promise<Error> = () => new ConflictError(`The ${write.type} changed meanwhile; retry.`),
): Promise<void> {
  const writes = [write.put, ...(write.items ?? [])];
  // Unconditioned, after the items `refused` names by index.
  const history = write.history ? historyItems(write.tenantId, write.history.previous, write.history.next) : [];
  try {
    if (write.entry) {
      await postEntry({
        tenantId: write.tenantId,
        entryId: write.entry.entryId,
        entry: write.entry.entry,
        now: write.now,
        outbox: write.outbox,
        extraItems: [...writes, ...history],
      });
    } else {
      await transactWrite([...writes, ...history, ...outboxItems(write.outbox)]);
    }
  } catch (error) {
    const failed =
      error instanceof ExtraItemConditionError
        ? error.extraIndexes
        : error instanceof TransactionConditionError
          ? error.failedIndexes.filter((i) => i < writes.length)
          : [];
    if (failed.length === 0) throw error;
    if (failed.includes(0)) throw new ConflictError(`The ${write.type} changed meanwhile; retry.`, { [`${write.type}_id`]: write.id });
    throw await refused((failed[0] ?? 1) - 1);
  }
}
