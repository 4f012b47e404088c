/**
 * What the event sources share: a worker as infra/definition.ts defines it, its slot (the function of the
 * shared Lambda runtime, and one lock so that a worker's cycles never overlap; a queue worker with
 * `maxConcurrency` hands batches it received to invocations running side by side), the environment a source
 * runs in, and the reading of a partial batch response.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import type { WorkerTrigger } from '../../definition.js';
import { LocalLambda } from '../lambda/runtime.js';

export type WorkerHandler = (event: never, context: Context) => unknown;

/** A trigger of infra/definition.ts, where a test may name a queue of its own. */
export type PollerTrigger = WorkerTrigger extends infer T ? (T extends { readonly kind: 'queue' } ? Omit<T, 'queue'> & { readonly queue: string } : T) : never;

/** A worker as in WORKER_FUNCTIONS; tests may give a handler in memory instead of an entry module. */
export interface PollerWorker {
  readonly name: string;
  readonly trigger: PollerTrigger;
  readonly timeoutSeconds: number;
  readonly entry?: string;
  readonly handler?: WorkerHandler;
}

/** What every source is given by the pollers. */
export interface SourceEnv {
  readonly region: string;
  /** Aborts when the pollers stop. */
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  stopped(): boolean;
  /** The SQS client (created on first use). */
  sqs(): SQSClient;
  /** A queue's URL by name. */
  queueUrl(name: string): string;
}

/** One kind of event source (queue, stream, schedule), driving the workers of its kind. */
export interface Source {
  /** One cycle for a worker (one receive, one pass over the stream, one scheduled run); runs under the worker's lock. */
  once(slot: WorkerSlot): Promise<unknown>;
  /** Feeds the worker until the pollers stop. */
  loop(slot: WorkerSlot): Promise<void>;
  /** After the loops ended: finish pending writes and release clients. */
  close(): Promise<void>;
}

/** Thrown inside a source when the pollers stop in the middle of a cycle. */
export class Stopped extends Error {}

/** Resolves after `ms`, or at once (without error) when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(finish, ms);
    function finish(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      done();
    }
    signal.addEventListener('abort', finish, { once: true });
  });
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `batchItemFailures` of a partial batch response: undefined = full success, null = malformed (whole batch failed). */
export function batchItemFailures(result: unknown): string[] | undefined | null {
  if (!isRecord(result) || !('batchItemFailures' in result)) return undefined;
  const failures = result.batchItemFailures;
  if (failures === null || failures === undefined) return undefined;
  if (!Array.isArray(failures)) return null;
  const ids: string[] = [];
  for (const f of failures) {
    if (!isRecord(f) || typeof f.itemIdentifier !== 'string' || f.itemIdentifier === '') return null;
    ids.push(f.itemIdentifier);
  }
  return ids;
}

/** A worker with its function in the shared Lambda runtime. */
export class WorkerSlot {
  private readonly fn: LocalLambda<WorkerHandler>;
  private lastLoadError = '';
  /** Serialises runOnce with the loop. */
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    readonly worker: PollerWorker,
    rootDir: string,
    region: string,
    private readonly log: (line: string) => void,
  ) {
    this.fn = new LocalLambda<WorkerHandler>(worker, { rootDir, region });
  }

  /** Runs `task` after every task queued before it (loop cycles, runOnce calls, scheduled runs). */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.lock.then(task);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** The handler, or undefined while its module cannot be loaded (logged once per distinct error). */
  async load(): Promise<WorkerHandler | undefined> {
    const { entry, handler, name } = this.worker;
    if (!entry && !handler) throw new Error(`worker ${name} has neither entry nor handler`);
    try {
      return await this.fn.load();
    } catch (error) {
      const text = errorText(error);
      if (text !== this.lastLoadError) this.log(`pollers: cannot load ${entry} (worker ${name}): ${text}`);
      this.lastLoadError = text;
      return undefined;
    }
  }

  /** Calls the handler like Lambda, with the worker's timeout; a timeout counts as an error. */
  invoke(handler: WorkerHandler, event: unknown): Promise<unknown> {
    return this.fn.invoke(handler, event, this.worker.timeoutSeconds * 1000);
  }
}
