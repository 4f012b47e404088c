import { randomInt } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../domain/errors.js';
import type { EntryDraft } from '../domain/ledger.js';
import type { Decimal } from '../domain/money.js';
import { add } from '../domain/money.js';
import { db, queryAll, tableName } from './client.js';
import { ExtraItemConditionError, postEntry } from './ledger.js';
import type { TransactionRecord } from '../domain/transactions.js';
import type { Key } from './keys.js';
import { packText, unpackText } from './packed.js';
import type { OutboxEvent } from './outbox.js';
import { outboxChangeItem, outboxEvent } from './outbox.js';
import type { TransactItem } from './transact.js';
import { TransactionConditionError, transactWrite } from './transact.js';
import { historyItems } from './transactions.js';
import { decimalText, storedDecimal } from './values.js';

/**
 * The one way every versioned aggregate is stored (payments, withdrawals, wallets, transfers, custody accounts and
 * deposits, exports, chain transactions): its item holds the whole state as ONE binary value, `state`, beside the
 * attributes its indexes and filters read, its `type` and its `version`. The repository alone bumps the version:
 * every save is a put conditioned on the version read (or on absence, for a creation) and stores the next one.
 *
 * `state` is the state's JSON (every amount a decimal string inside it, so nothing passes through a float) packed as
 * shared/store/packed.ts packs: deflated, against the type's preset dictionary where it has one (a payment's 1.5 KB
 * of JSON is then 0.3 to 0.55 KB stored, so its item and its work-queue copy stay within one write unit).
 */

/** A state as stored: its JSON packed (against `dictionary`, the type's, when it has one). */
export const packState = (state: unknown, dictionary?: Uint8Array): Buffer => packText(JSON.stringify(state), dictionary);

/** A stored state read back (`dictionary`: the type's, for a type that has one). */
const unpackState = <S>(packed: Uint8Array, dictionary?: Uint8Array): S => JSON.parse(unpackText(packed, dictionary)) as S;

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

/** The attributes every versioned aggregate item carries: its type, version and state (`packState`). */
export const stateAttributes = <S extends Versioned>(type: string, state: S, dictionary?: Uint8Array) => ({
  type,
  version: state.version,
  state: packState(state, dictionary),
});

/** The state of an aggregate item of `type` (`dictionary`: the type's, if it has one). */
export function stateOf<S>(item: Record<string, unknown>, type: string, dictionary?: Uint8Array): S {
  const stored = item.state;
  if (item.type !== type || !(stored instanceof Uint8Array)) throw new TypeError(`Not a ${type} item`);
  return unpackState<S>(stored, dictionary);
}

/** Reads an aggregate, strongly consistent; `decode` reads the item (default: `stateOf` without a dictionary). */
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

/** The outbox write of a change: one item holding all its events (`outboxChangeItem`), none without events. */
export const outboxItems = (events: readonly OutboxEvent[]): TransactItem[] => (events.length === 0 ? [] : [outboxChangeItem(events)]);

/** The attribute of a day-total item (`dayTotalItem`) that holds the total. */
const DAY_TOTAL_ATTRIBUTE = 'total_usd';

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
  const history = write.history ? historyItems(write.tenantId, write.history.previous, write.history.next, writes) : [];
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
