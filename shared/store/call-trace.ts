import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { db } from './client.js';

/**
 * Opt-in trace of the document client's table operations (tests and benchmarks; nothing in a Lambda imports it):
 * each call's command, its input, and when it started and ended on a counter of events, not a clock, so which
 * calls overlapped is exact and the same on every run. `waves` groups the calls into sequential round trips.
 */
export interface TracedCall {
  /** The table operation, e.g. `GetItemCommand`, `BatchGetItemCommand`. */
  readonly command: string;
  /** The document client's input (values not yet marshalled). */
  readonly input: Readonly<Record<string, unknown>>;
  readonly start: number;
  /** Infinity while the call is pending. */
  readonly end: number;
}

export interface CallTrace {
  /** The calls since the trace started or was last reset, in the order they started. */
  calls(): readonly TracedCall[];
  /** A point on the trace's counter: the calls that start after it are `calls().filter((c) => c.start > point)`. */
  mark(): number;
  /** Calls started and not yet answered (those started before a reset too). */
  pending(): number;
  reset(): void;
  /** Removes the middleware. */
  stop(): void;
}

const NAME = 'gatewayCallTrace';

/** Traces the calls of `client` (default: the current `db()`; a client built after a `resetDb()` is not traced). */
export function traceCalls(client: DynamoDBDocumentClient = db()): CallTrace {
  let clock = 0;
  let calls: { command: string; input: Record<string, unknown>; start: number; end: number }[] = [];
  let pending = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const call = { command: context.commandName ?? '', input: { ...(args.input as Record<string, unknown>) }, start: ++clock, end: Infinity };
      calls.push(call);
      pending++;
      try {
        return await next(args);
      } finally {
        call.end = ++clock;
        pending--;
      }
    },
    { step: 'initialize', name: NAME, override: true },
  );
  return {
    calls: () => calls,
    mark: () => ++clock,
    pending: () => pending,
    reset: () => {
      calls = [];
    },
    stop: () => {
      client.middlewareStack.remove(NAME);
    },
  };
}

/**
 * The calls as sequential round trips: a call's round trip is one more than that of the latest-numbered call that had
 * answered before it started (it may have waited for that answer), the first round trip when none had; calls issued
 * together (one Promise.all) share one. The number of waves is the longest chain of calls each started after the one
 * before answered.
 */
export function waves(calls: readonly TracedCall[]): TracedCall[][] {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  const result: TracedCall[][] = [];
  const depth = new Map<TracedCall, number>();
  for (const call of sorted) {
    let d = 0;
    for (const before of sorted) if (before.end < call.start) d = Math.max(d, (depth.get(before) ?? 0) + 1);
    depth.set(call, d);
    (result[d] ??= []).push(call);
  }
  return result;
}

/** A wave as text: `BatchGetItem`, `GetItem + 4 x Query`. */
export function describeWave(wave: readonly TracedCall[]): string {
  const counts = new Map<string, number>();
  for (const call of wave) {
    const name = call.command.replace(/Command$/, '');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => (n === 1 ? name : `${n} x ${name}`)).join(' + ');
}

/** One item a traced write command writes (or, in a transaction, checks). */
export interface ItemWrite {
  readonly kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  readonly table: string;
  readonly key: Record<string, unknown>;
  /** A put's item, as written. */
  readonly item?: Record<string, unknown>;
  readonly transactional: boolean;
}

/** The items a write command (`PutItemCommand`, `TransactWriteItemsCommand`, ...) writes, in order; none for a read. */
export function itemWrites(command: string, input: Readonly<Record<string, unknown>>): ItemWrite[] {
  type Entry = { TableName?: string; Item?: Record<string, unknown>; Key?: Record<string, unknown> };
  const one = (kind: ItemWrite['kind'], e: Entry, transactional: boolean): ItemWrite => ({
    kind,
    table: String(e.TableName),
    key: e.Key ?? { pk: e.Item?.pk, sk: e.Item?.sk },
    ...(e.Item ? { item: e.Item } : {}),
    transactional,
  });
  switch (command) {
    case 'PutItemCommand':
      return [one('Put', input as Entry, false)];
    case 'UpdateItemCommand':
      return [one('Update', input as Entry, false)];
    case 'DeleteItemCommand':
      return [one('Delete', input as Entry, false)];
    case 'TransactWriteItemsCommand':
      return ((input.TransactItems ?? []) as Record<string, Entry>[]).flatMap((entry) =>
        Object.entries(entry).map(([kind, e]) => one(kind as ItemWrite['kind'], e, true)),
      );
    case 'BatchWriteItemCommand':
      return Object.entries((input.RequestItems ?? {}) as Record<string, { PutRequest?: Entry; DeleteRequest?: Entry }[]>).flatMap(([TableName, requests]) =>
        requests.map((r) => (r.PutRequest ? one('Put', { TableName, ...r.PutRequest }, false) : one('Delete', { TableName, ...r.DeleteRequest }, false))),
      );
    default:
      return [];
  }
}
