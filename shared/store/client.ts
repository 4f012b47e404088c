import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../config/config.js';
import type { Key } from './keys.js';
import { traced } from '../observability/client-tracing.js';

/**
 * The document client, created once per process. Numbers are read wrapped (`wrapNumbers`) so that no
 * stored amount passes through a float; repositories turn them into decimal strings or integers.
 */
let client: DynamoDBDocumentClient | undefined;

export function db(): DynamoDBDocumentClient {
  if (!client) {
    client = DynamoDBDocumentClient.from(traced(new DynamoDBClient({ region: config().AWS_REGION, maxAttempts: 5 })), {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      unmarshallOptions: { wrapNumbers: true },
    });
    if (meter) installMeter(client, meter);
  }
  return client;
}

export function tableName(): string {
  return config().TABLE_NAME;
}

/**
 * Every item a Query matches, page after page; with `max`, stops once that many are read (each page asks for at
 * most what is still wanted).
 */
export async function queryAll(input: QueryCommandInput, max = Number.POSITIVE_INFINITY): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const limit = Number.isFinite(max) ? Math.max(1, max - items.length) : input.Limit;
    const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: start, ...(limit === undefined ? {} : { Limit: limit }) }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < max);
  return items.slice(0, max);
}

export interface BatchGetOptions {
  /** Strongly consistent reads (default: eventually consistent). */
  readonly consistent?: boolean;
  /** Only these attributes (names, escaped here). */
  readonly attributes?: readonly string[];
}

const BATCH_GET_MAX_KEYS = 100;
const BATCH_GET_MAX_ATTEMPTS = 8;

/**
 * The items of `keys` that exist, in no particular order: one BatchGetItem per 100 keys, side by side, each asking
 * again, with a growing pause, for the keys DynamoDB left unprocessed (throttling).
 */
export async function batchGet(keys: readonly Key[], options: BatchGetOptions = {}): Promise<Record<string, unknown>[]> {
  const table = tableName();
  const names = options.attributes?.map((name, i) => [`#a${i}`, name] as const);
  const shape = {
    ...(options.consistent ? { ConsistentRead: true } : {}),
    ...(names ? { ProjectionExpression: names.map(([alias]) => alias).join(', '), ExpressionAttributeNames: Object.fromEntries(names) } : {}),
  };
  const chunk = async (wanted: readonly Key[]): Promise<Record<string, unknown>[]> => {
    const found: Record<string, unknown>[] = [];
    let pending = wanted;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > BATCH_GET_MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} key(s) unprocessed after ${BATCH_GET_MAX_ATTEMPTS} attempts`);
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, Math.min(500, 10 * 2 ** attempt) * (0.5 + Math.random() / 2)));
      const out = await db().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: [...pending], ...shape } } }));
      found.push(...(out.Responses?.[table] ?? []));
      pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as Key[];
    }
    return found;
  };
  const chunks: Key[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_MAX_KEYS) chunks.push(keys.slice(i, i + BATCH_GET_MAX_KEYS));
  return (await Promise.all(chunks.map(chunk))).flat();
}

/** Drop the client so the next call builds one from the current configuration (tests, local stack). */
export function resetDb(): void {
  client?.destroy();
  client = undefined;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Capacity meter (benchmarks): off by default; when off, no middleware is installed at all.                    */
/* ------------------------------------------------------------------------------------------------------------ */

export type CapacityKind = 'read' | 'write';

/** The table operations that accept `ReturnConsumedCapacity`, by the kind of units they consume. */
export const CAPACITY_KIND: Readonly<Record<string, CapacityKind>> = {
  GetItemCommand: 'read',
  BatchGetItemCommand: 'read',
  QueryCommand: 'read',
  ScanCommand: 'read',
  TransactGetItemsCommand: 'read',
  PutItemCommand: 'write',
  UpdateItemCommand: 'write',
  DeleteItemCommand: 'write',
  BatchWriteItemCommand: 'write',
  TransactWriteItemsCommand: 'write',
};

export interface Units {
  readonly read: number;
  readonly write: number;
}

/**
 * The read and write units of one answer's `ConsumedCapacity` (one object, or an array for batch and
 * transaction operations). `ReadCapacityUnits` / `WriteCapacityUnits` are used when given; otherwise
 * `CapacityUnits` counts as units of `kind` (DynamoDB Local answers `CapacityUnits` only). `reported` is false
 * when the answer carried no capacity at all.
 */
export function consumedUnits(consumed: unknown, kind: CapacityKind): Units & { readonly reported: boolean } {
  const entries = Array.isArray(consumed) ? (consumed as unknown[]) : consumed === undefined || consumed === null ? [] : [consumed];
  let read = 0;
  let write = 0;
  let reported = false;
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  for (const entry of entries) {
    if (typeof entry !== 'object' || entry === null) continue;
    const e = entry as Record<string, unknown>;
    const r = num(e.ReadCapacityUnits);
    const w = num(e.WriteCapacityUnits);
    const total = num(e.CapacityUnits);
    if (r !== undefined || w !== undefined) {
      read += r ?? 0;
      write += w ?? 0;
      reported = true;
    } else if (total !== undefined) {
      if (kind === 'read') read += total;
      else write += total;
      reported = true;
    }
  }
  return { read, write, reported };
}

export interface CommandCapacity extends Units {
  readonly calls: number;
  /** Calls whose answer (or error) carried no ConsumedCapacity: failed conditional writes, cancelled transactions. */
  readonly unreported: number;
}

export interface CapacityTotals extends CommandCapacity {
  readonly byCommand: Readonly<Record<string, CommandCapacity>>;
}

export interface CapacityMeter {
  /** Sums since the meter started or was last reset. */
  totals(): CapacityTotals;
  reset(): void;
  /** Removes the middleware; the client is as if never metered. */
  stop(): void;
}

interface MeterState {
  byCommand: Map<string, { calls: number; unreported: number; read: number; write: number }>;
}

const METER_NAME = 'gatewayCapacityMeter';
let meter: MeterState | undefined;

/** Adds one answer to a meter's sums. Exported for the unit test of the summing. */
export function recordCapacity(state: { byCommand: MeterState['byCommand'] }, commandName: string, consumed: unknown): void {
  const kind = CAPACITY_KIND[commandName];
  if (!kind) return;
  const units = consumedUnits(consumed, kind);
  const row = state.byCommand.get(commandName) ?? { calls: 0, unreported: 0, read: 0, write: 0 };
  row.calls++;
  if (!units.reported) row.unreported++;
  row.read += units.read;
  row.write += units.write;
  state.byCommand.set(commandName, row);
}

export function capacityTotals(state: { byCommand: MeterState['byCommand'] }): CapacityTotals {
  const byCommand: Record<string, CommandCapacity> = {};
  let read = 0;
  let write = 0;
  let calls = 0;
  let unreported = 0;
  for (const [name, row] of state.byCommand) {
    byCommand[name] = { ...row };
    read += row.read;
    write += row.write;
    calls += row.calls;
    unreported += row.unreported;
  }
  return { read, write, calls, unreported, byCommand };
}

function installMeter(target: DynamoDBDocumentClient, state: MeterState): void {
  target.middlewareStack.add(
    (next, context) => async (args) => {
      const commandName = context.commandName ?? '';
      if (!CAPACITY_KIND[commandName]) return next(args);
      const input = args.input as { ReturnConsumedCapacity?: string };
      if (input.ReturnConsumedCapacity === undefined || input.ReturnConsumedCapacity === 'NONE') {
        args = { ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } };
      }
      try {
        const result = await next(args);
        recordCapacity(state, commandName, (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
        return result;
      } catch (error) {
        recordCapacity(state, commandName, (error as { ConsumedCapacity?: unknown } | null)?.ConsumedCapacity);
        throw error;
      }
    },
    { step: 'initialize', name: METER_NAME, override: true },
  );
}

/**
 * Opt-in capacity meter for benchmarks: every table operation of `db()` (this client and the ones built after a
 * `resetDb()`) asks for `ReturnConsumedCapacity: 'TOTAL'` and its units are summed, per command. One meter at a
 * time: a second call returns a fresh meter replacing the first.
 */
export function meterCapacity(): CapacityMeter {
  const state: MeterState = { byCommand: new Map() };
  meter = state;
  if (client) installMeter(client, state);
  return {
    totals: () => capacityTotals(state),
    reset: () => state.byCommand.clear(),
    stop: () => {
      if (meter !== state) return;
      meter = undefined;
      client?.middlewareStack.remove(METER_NAME);
    },
  };
}
