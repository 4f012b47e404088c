/**
 * The event sources of the local stack: what Lambda's event source mappings and EventBridge do on AWS, for
 * every worker of infra/definition.ts. Each trigger kind has its source (sources/queue.ts, sources/stream.ts,
 * sources/schedule.ts) over the shared Lambda runtime (lambda/runtime.ts); this module starts them and stops
 * them.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { setMaxListeners } from 'node:events';
import { WORKER_FUNCTIONS } from '../definition.js';
import { REPO_ROOT } from './lambda/runtime.js';
import { queueSource } from './sources/queue.js';
import { scheduleSource } from './sources/schedule.js';
import type { ScheduleOptions } from './sources/schedule.js';
import { streamSource } from './sources/stream.js';
import type { StreamOptions } from './sources/stream.js';
import { WorkerSlot } from './sources/worker.js';
import type { PollerTrigger, PollerWorker, Source, SourceEnv } from './sources/worker.js';

export type { ScheduleOptions } from './sources/schedule.js';
export type { StreamOptions } from './sources/stream.js';
export type { PollerTrigger, PollerWorker, WorkerHandler } from './sources/worker.js';

export interface StartPollersOptions {
  /** Default: WORKER_FUNCTIONS. */
  readonly workers?: readonly PollerWorker[];
  /** Directory entries are relative to (default: the repository root). */
  readonly rootDir?: string;
  readonly region?: string;
  readonly sqsUrl?: string;
  /** Queue name -> URL (SQS workers and the stream failure queue). */
  readonly queueUrls?: Readonly<Record<string, string>>;
  readonly dynamodbUrl?: string;
  readonly tableName?: string;
  /** Checkpoints go to `<dataDir>/checkpoints/`; null: kept in memory only. */
  readonly dataDir?: string | null;
  /** Long-poll wait of ReceiveMessage (s). */
  readonly queueWaitSeconds?: number;
  readonly stream?: StreamOptions;
  readonly schedule?: ScheduleOptions;
  /** false: no loops; only `runOnce` (tests). Default true. */
  readonly autoStart?: boolean;
  readonly log?: (line: string) => void;
}

export interface Pollers {
  readonly workers: readonly string[];
  /** One cycle of a worker's source: one receive, one pass over the stream's shards, or one scheduled run. */
  runOnce(name: string): Promise<void>;
  stop(): Promise<void>;
}

export function startPollers(options: StartPollersOptions = {}): Pollers {
  const log = options.log ?? (() => undefined);
  const region = options.region ?? 'us-east-1';
  const rootDir = options.rootDir ?? REPO_ROOT;
  const workers = options.workers ?? WORKER_FUNCTIONS;
  const queueUrls = options.queueUrls ?? {};
  const controller = new AbortController();
  // Every schedule loop and every request in flight listens to it.
  setMaxListeners(0, controller.signal);
  let stopped = false;

  const slots = new Map<string, WorkerSlot>();
  for (const w of workers) {
    if (slots.has(w.name)) throw new Error(`worker ${w.name} is defined twice`);
    slots.set(w.name, new WorkerSlot(w, rootDir, region, log));
  }

  let sqs: SQSClient | undefined;
  const env: SourceEnv = {
    region,
    signal: controller.signal,
    log,
    stopped: () => stopped,
    sqs: () => {
      if (!options.sqsUrl) throw new Error('pollers: no sqsUrl given');
      sqs ??= new SQSClient({ endpoint: options.sqsUrl, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
      return sqs;
    },
    queueUrl: (name) => {
      const url = queueUrls[name];
      if (!url) throw new Error(`pollers: no URL for queue ${name}`);
      return url;
    },
  };
  const sources: Record<PollerTrigger['kind'], Source> = {
    queue: queueSource(env, { ...(options.queueWaitSeconds !== undefined ? { waitSeconds: options.queueWaitSeconds } : {}) }),
    stream: streamSource(env, { dynamodbUrl: options.dynamodbUrl, tableName: options.tableName, dataDir: options.dataDir }, options.stream),
    schedule: scheduleSource(env, options.schedule),
  };
  const sourceOf = (slot: WorkerSlot): Source => sources[slot.worker.trigger.kind];

  const loops: Promise<void>[] = [];
  if (options.autoStart !== false) {
    for (const slot of slots.values()) {
      loops.push(sourceOf(slot).loop(slot));
      // A scheduled worker's wake queue: its messages run it between its scheduled runs.
      if (slot.worker.trigger.kind === 'schedule' && slot.worker.trigger.wakeQueue !== undefined) loops.push(sources.queue.loop(slot));
    }
    if (slots.size > 0) log(`pollers: ${slots.size} worker(s): ${[...slots.values()].map((s) => `${s.worker.name} (${s.worker.trigger.kind})`).join(', ')}`);
  }

  return {
    workers: [...slots.keys()],
    runOnce: async (name) => {
      const slot = slots.get(name);
      if (!slot) throw new Error(`no worker named ${name}`);
      await slot.serial(() => sourceOf(slot).once(slot));
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      controller.abort();
      // A handler in flight finishes (up to 10 s), as a Lambda invocation would.
      await Promise.race([Promise.allSettled(loops), new Promise((r) => setTimeout(r, 10_000).unref())]);
      await Promise.allSettled(Object.values(sources).map((s) => s.close()));
      sqs?.destroy();
    },
  };
}
