import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { db } from '../shared/store/client.js';
import type { LoadResult } from './load.js';
import { describeWave, traceCalls, waves, type TracedCall } from '../shared/store/call-trace.js';

/**
 * The table operations one HTTP request makes, recorded on the document client the local stack's Lambdas share
 * with this process (shared/store/call-trace.ts), as sequential round trips; and the same operations issued
 * directly, round trip by round trip, as the baseline a request's rate is set beside.
 */
export interface RecordedRequest {
  readonly status: number;
  /** The calls, grouped into round trips. */
  readonly waves: readonly (readonly TracedCall[])[];
  readonly operations: number;
  /** `BatchGetItem; UpdateItem; GetItem + 4 x Query`. */
  readonly described: string;
}

/**
 * Sends one request and records its table calls, once the table has seen no call for a while (the requests of a load
 * run just ended may still be answering).
 */
export async function recordRequest(send: () => Promise<Response>): Promise<RecordedRequest> {
  const trace = traceCalls();
  try {
    await quietOn(trace);
    const res = await send();
    await res.arrayBuffer();
    const grouped = waves(trace.calls());
    return { status: res.status, waves: grouped, operations: trace.calls().length, described: grouped.map(describeWave).join('; ') };
  } finally {
    trace.stop();
  }
}

async function quietOn(trace: ReturnType<typeof traceCalls>): Promise<void> {
  for (let quiet = false; !quiet;) {
    trace.reset();
    await new Promise((resolve) => setTimeout(resolve, 500));
    quiet = trace.calls().length === 0 && trace.pending() === 0;
  }
}

/**
 * Resolves once the table has seen no call for 500 ms: the requests a load run cut off at its deadline are still
 * being answered by the gateway after it, and the next run (or the stack's stop) should not meet them.
 */
async function untilQuiet(): Promise<void> {
  const trace = traceCalls();
  try {
    await quietOn(trace);
  } finally {
    trace.stop();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command takes its own input type
const COMMANDS: Record<string, new (input: any) => any> = {
  GetItemCommand: GetCommand,
  BatchGetItemCommand: BatchGetCommand,
  QueryCommand,
  ScanCommand,
  TransactGetItemsCommand: TransactGetCommand,
  PutItemCommand: PutCommand,
  UpdateItemCommand: UpdateCommand,
  DeleteItemCommand: DeleteCommand,
  BatchWriteItemCommand: BatchWriteCommand,
  TransactWriteItemsCommand: TransactWriteCommand,
};

/**
 * The recorded operations issued again, directly, round trip by round trip (the calls of one round trip together),
 * by `concurrency` workers for `seconds`: how many times per second the whole set completes. Reads and counter
 * updates only (a recorded conditional write would be refused the second time).
 */
export async function replayPerSecond(recorded: RecordedRequest, seconds: number, concurrency = 10): Promise<number> {
  const rounds = recorded.waves.map((wave) =>
    wave.map((call) => {
      const Command = COMMANDS[call.command];
      if (!Command) throw new Error(`cannot replay ${call.command}`);
      return () => db().send(new Command(call.input));
    }),
  );
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      for (const round of rounds) await Promise.all(round.map((issue) => issue()));
      // As autocannon counts the HTTP side: a replay still running at the deadline does not count.
      if (Date.now() <= deadline) done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / seconds;
}

/** Turns of each side in a measured comparison: even, so the order a b, b a, ... gives both the same mean position. */
export const TURNS = 6;

/** The length of one turn when a comparison is to last about `seconds` a side: whole seconds, as autocannon samples. */
const turnSeconds = (seconds: number, turns = TURNS): number => Math.max(1, Math.round(seconds / turns));

/**
 * `a` and `b` in turns, `slices` times each, the order swapped every turn (a b, b a, a b, ...): on a shared machine a
 * change in load then weighs on both figures alike, where one long run of each would set a busy minute beside a
 * quiet one. With an even number of turns, each side's runs sit at the same mean position in time, so a steady drift
 * over the run (DynamoDB Local's JIT still warming, a job starting) weighs on both alike; with an odd number, the side
 * that goes first has one run more at the start.
 */
async function alternate<A, B>(slices: number, a: () => Promise<A>, b: () => Promise<B>): Promise<{ readonly a: A[]; readonly b: B[] }> {
  if (slices % 2 !== 0) throw new Error(`alternate needs an even number of turns (got ${slices})`);
  const as: A[] = [];
  const bs: B[] = [];
  for (let i = 0; i < slices; i++) {
    if (i % 2 === 0) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  return { a: as, b: bs };
}

/**
 * Warm-up of a comparison: both sides in turns, this many turns of this many seconds (about a minute in all), until
 * DynamoDB Local's JIT has settled. Its cost per operation keeps falling over the first minute of load, and a ratio
 * or a tail taken meanwhile moves with it: the side measured later in a turn finds it warmer, and a compilation
 * stalls whichever side is running.
 */
const SETTLE_TURNS = 4;
const SETTLE_TURN_SECONDS = 8;

/** Seconds measured on each side of a comparison per `BENCH_SECONDS`: a ratio near its target needs more than one run's noise can give. */
const MEASURED_PER_BENCH_SECOND = 3;

export interface Comparison<A, B> {
  readonly a: A[];
  readonly b: B[];
  /** Measured runs of each side. */
  readonly turns: number;
  /** Seconds of each. */
  readonly turnSeconds: number;
}

/**
 * `a` beside `b` as the bench takes an HTTP figure beside its baseline (`GET /user/me/`, `POST /payments/`): both warmed in turns until DynamoDB Local has settled,
 * then `turns` measured runs of each, in turns, `MEASURED_PER_BENCH_SECOND x benchSeconds` a side in all.
 */
export async function settleThenCompare<A, B>(
  benchSeconds: number,
  a: (seconds: number) => Promise<A>,
  b: (seconds: number) => Promise<B>,
  turns = TURNS,
): Promise<Comparison<A, B>> {
  // Each run by itself: it starts once what the one before left in flight is answered.
  const alone =
    <T>(run: (seconds: number) => Promise<T>, seconds: number) =>
    async (): Promise<T> => {
      const result = await run(seconds);
      await untilQuiet();
      return result;
    };
  await alternate(SETTLE_TURNS, alone(a, SETTLE_TURN_SECONDS), alone(b, SETTLE_TURN_SECONDS));
  const seconds = turnSeconds(benchSeconds * MEASURED_PER_BENCH_SECOND, turns);
  const measured = await alternate(turns, alone(a, seconds), alone(b, seconds));
  return { ...measured, turns, turnSeconds: seconds };
}

export const mean = (values: readonly number[]): number => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Load runs of equal length as one: mean rate, median percentiles, summed failures. */
export function combine(runs: readonly LoadResult[]): LoadResult {
  return {
    requestsPerSecond: mean(runs.map((r) => r.requestsPerSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    errors: runs.reduce((s, r) => s + r.errors, 0),
  };
}
