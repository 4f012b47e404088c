/**
 * The event sources of the local stack: what Lambda's event source mappings and EventBridge do on AWS.
 *
 * - Queue workers: long-poll their queue (batch size as defined), call the handler with an SQS event, delete
 *   what succeeded (partial batch responses: `batchItemFailures`); a throw deletes nothing, so the messages
 *   come back after the visibility timeout, and the SQS server moves them to the DLQ after maxReceiveCount.
 * - The stream worker: reads the table's stream (DynamoDB Streams API of DynamoDB Local), keeps only what the
 *   CDK filter keeps (INSERTs of outbox items), honours `batchItemFailures`, bisects a failing batch and sends
 *   a record that still fails after the retries to the `event-router-failures` queue, then moves on.
 *   Checkpoints (last sequence number per shard) persist in the data dir.
 * - Schedule workers: an EventBridge "Scheduled Event" every N minutes (first run shortly after start), never
 *   two runs of one worker at once.
 */
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue as SdkAttributeValue, _Record as SdkStreamRecord, Shard } from '@aws-sdk/client-dynamodb-streams';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type {
  AttributeValue,
  Context,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  ScheduledEvent,
  SQSEvent,
  SQSMessageAttributes,
  SQSRecord,
} from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WORKER_FUNCTIONS } from '../definition.js';
import { OUTBOX_KEY_PREFIX, TABLE } from '../table.js';

export type WorkerHandler = (event: never, context: Context) => unknown;

export type PollerTrigger =
  | { readonly kind: 'schedule'; readonly everyMinutes: number }
  | { readonly kind: 'queue'; readonly queue: string; readonly batchSize: number }
  | { readonly kind: 'stream' };

/** A worker as in WORKER_FUNCTIONS; tests may give a handler in memory instead of an entry module. */
export interface PollerWorker {
  readonly name: string;
  readonly trigger: PollerTrigger;
  readonly timeoutSeconds: number;
  readonly entry?: string;
  readonly handler?: WorkerHandler;
}

export interface StreamOptions {
  /** Records per invocation (Lambda's default for streams: 100). */
  readonly batchSize?: number;
  /** Pause between polls of an idle stream (Lambda polls shards about 4 times a second). */
  readonly pollIntervalMs?: number;
  /** Retries of a failing (single-record) batch before it goes to the failure queue (as CDK: 5). */
  readonly retryAttempts?: number;
  /** First retry delay; doubles per attempt up to 10 s. */
  readonly retryDelayMs?: number;
  /** On-failure destination (queue name in `queueUrls`), as CDK: event-router-failures. */
  readonly failureQueue?: string;
  /** Which records reach the worker (default: the CDK filter, INSERTs of outbox items). */
  readonly filter?: (record: DynamoDBRecord) => boolean;
  /** Where reading starts without a checkpoint. */
  readonly startingPosition?: 'TRIM_HORIZON' | 'LATEST';
}

export interface ScheduleOptions {
  /** Delay of the first run after start (default 2 s). */
  readonly firstRunDelayMs?: number;
  /** Period of a worker defined as every N minutes (default N minutes). */
  readonly intervalMs?: (everyMinutes: number) => number;
}

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

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ACCOUNT_ID = '123456789012';
/** As infra/cdk/gateway-stack.ts (STREAM_FAILURE_QUEUE, STREAM_RETRY_ATTEMPTS). */
const DEFAULT_FAILURE_QUEUE = 'event-router-failures';
const DEFAULT_RETRY_ATTEMPTS = 5;

class Stopped extends Error {}

/** Resolves after `ms`, or at once (without error) when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
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

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');

function isRecord(value: unknown): value is Record<string, unknown> {
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

/** The CDK event filter: `eventName` INSERT and the partition key begins with the outbox prefix. */
export function outboxFilter(record: DynamoDBRecord): boolean {
  if (record.eventName !== 'INSERT') return false;
  const pk = record.dynamodb?.Keys?.[TABLE.partitionKey]?.S;
  return typeof pk === 'string' && pk.startsWith(OUTBOX_KEY_PREFIX);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Stream records as Lambda passes them                                                                         */
/* ------------------------------------------------------------------------------------------------------------ */

function toLambdaAttribute(value: SdkAttributeValue): AttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttribute) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  return { NULL: true };
}

function toLambdaImage(image: Record<string, SdkAttributeValue> | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  if (image) for (const [k, v] of Object.entries(image)) out[k] = toLambdaAttribute(v);
  return out;
}

/** A GetRecords record in the shape of a Lambda DynamoDB stream event record (JSON attribute values, epoch seconds). */
export function toLambdaStreamRecord(record: SdkStreamRecord, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb;
  const created = d?.ApproximateCreationDateTime;
  const out: DynamoDBRecord = {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource ?? 'aws:dynamodb',
    awsRegion: record.awsRegion,
    dynamodb: {
      ...(created !== undefined ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}),
      ...(d?.Keys ? { Keys: toLambdaImage(d.Keys) } : {}),
      ...(d?.NewImage ? { NewImage: toLambdaImage(d.NewImage) } : {}),
      ...(d?.OldImage ? { OldImage: toLambdaImage(d.OldImage) } : {}),
      SequenceNumber: d?.SequenceNumber,
      SizeBytes: d?.SizeBytes,
      StreamViewType: d?.StreamViewType,
    },
    eventSourceARN: streamArn,
  };
  if (record.userIdentity) out.userIdentity = record.userIdentity;
  return out;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Handlers                                                                                                     */
/* ------------------------------------------------------------------------------------------------------------ */

class WorkerSlot {
  private handler: WorkerHandler | undefined;
  private loading: Promise<WorkerHandler> | undefined;
  private lastLoadError = '';
  /** Serialises runOnce with the loop. */
  private lock: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it (loop cycles, runOnce calls, scheduled runs). */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.lock.then(task);
    this.lock = run.catch(() => undefined);
    return run;
  }

  constructor(
    readonly worker: PollerWorker,
    private readonly rootDir: string,
    private readonly region: string,
    private readonly log: (line: string) => void,
  ) {
    this.handler = worker.handler;
  }

  /** The handler, or undefined while its module cannot be loaded (logged once per distinct error). */
  async load(): Promise<WorkerHandler | undefined> {
    if (this.handler) return this.handler;
    const entry = this.worker.entry;
    if (!entry) throw new Error(`worker ${this.worker.name} has neither entry nor handler`);
    const path = isAbsolute(entry) ? entry : resolve(this.rootDir, entry);
    this.loading ??= import(process.platform === 'win32' ? pathToFileURL(path).href : path).then((mod: unknown) => {
      const handler = isRecord(mod) ? mod.handler : undefined;
      if (typeof handler !== 'function') throw new Error(`${entry} does not export a function named handler`);
      return handler as WorkerHandler;
    });
    try {
      this.handler = await this.loading;
      return this.handler;
    } catch (error) {
      this.loading = undefined;
      const text = errorText(error);
      if (text !== this.lastLoadError) this.log(`pollers: cannot load ${entry} (worker ${this.worker.name}): ${text}`);
      this.lastLoadError = text;
      return undefined;
    }
  }

  /** Calls the handler like Lambda: a context with a deadline; a timeout counts as an error. */
  async invoke(handler: WorkerHandler, event: unknown): Promise<unknown> {
    const timeoutMs = this.worker.timeoutSeconds * 1000;
    const deadline = Date.now() + timeoutMs;
    const name = this.worker.name;
    const context: Context = {
      callbackWaitsForEmptyEventLoop: true,
      functionName: name,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${this.region}:${ACCOUNT_ID}:function:${name}`,
      memoryLimitInMB: '1024',
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${name}`,
      logStreamName: 'local',
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    };
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        Promise.resolve().then(() => handler(event as never, context)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Task timed out after ${this.worker.timeoutSeconds} seconds`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Pollers                                                                                                      */
/* ------------------------------------------------------------------------------------------------------------ */

interface Checkpoint {
  streamArn: string;
  /** Per shard: the last sequence number processed (or skipped by the filter), and whether it is finished. */
  shards: Record<string, { sequenceNumber?: string; done?: boolean }>;
}

interface ShardState {
  readonly shardId: string;
  readonly parentShardId: string | undefined;
  iterator: string | undefined;
  sequenceNumber: string | undefined;
  done: boolean;
}

export function startPollers(options: StartPollersOptions = {}): Pollers {
  const log = options.log ?? (() => undefined);
  const region = options.region ?? 'us-east-1';
  const rootDir = options.rootDir ?? REPO_ROOT;
  const workers = options.workers ?? WORKER_FUNCTIONS;
  const queueUrls = options.queueUrls ?? {};
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const controller = new AbortController();
  const signal = controller.signal;
  let stopped = false;

  const slots = new Map<string, WorkerSlot>();
  for (const w of workers) {
    if (slots.has(w.name)) throw new Error(`worker ${w.name} is defined twice`);
    slots.set(w.name, new WorkerSlot(w, rootDir, region, log));
  }

  let sqs: SQSClient | undefined;
  const sqsClient = (): SQSClient => {
    if (!options.sqsUrl) throw new Error('pollers: no sqsUrl given');
    sqs ??= new SQSClient({ endpoint: options.sqsUrl, region, credentials });
    return sqs;
  };
  let ddb: DynamoDBClient | undefined;
  let streams: DynamoDBStreamsClient | undefined;
  const streamClients = (): { ddb: DynamoDBClient; streams: DynamoDBStreamsClient } => {
    if (!options.dynamodbUrl || !options.tableName) throw new Error('pollers: stream workers need dynamodbUrl and tableName');
    ddb ??= new DynamoDBClient({ endpoint: options.dynamodbUrl, region, credentials });
    streams ??= new DynamoDBStreamsClient({ endpoint: options.dynamodbUrl, region, credentials });
    return { ddb, streams };
  };
  const queueUrlOf = (name: string): string => {
    const url = queueUrls[name];
    if (!url) throw new Error(`pollers: no URL for queue ${name}`);
    return url;
  };

  /* ---------------------------------------------------------------- queues */

  const toSqsRecord = (m: Message, queue: string): SQSRecord => {
    const attributes = { ...(m.Attributes ?? {}) } as SQSRecord['attributes'];
    const messageAttributes: SQSMessageAttributes = {};
    for (const [name, value] of Object.entries(m.MessageAttributes ?? {}) as [string, MessageAttributeValue][]) {
      messageAttributes[name] = {
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
        dataType: value.DataType ?? 'String',
      };
    }
    return {
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
      attributes,
      messageAttributes,
      md5OfBody: m.MD5OfBody ?? '',
      ...(m.MD5OfMessageAttributes ? { md5OfMessageAttributes: m.MD5OfMessageAttributes } : {}),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:${region}:${ACCOUNT_ID}:${queue}`,
      awsRegion: region,
    };
  };

  /** One receive and delivery; returns the number of messages received. */
  const pollQueue = async (slot: WorkerSlot, waitSeconds: number): Promise<number> => {
    const trigger = slot.worker.trigger;
    if (trigger.kind !== 'queue') return 0;
    const handler = await slot.load();
    if (!handler) {
      await pause(2_000, signal);
      return 0;
    }
    const queueUrl = queueUrlOf(trigger.queue);
    const received = await sqsClient().send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, Math.max(1, trigger.batchSize)),
        WaitTimeSeconds: waitSeconds,
        // local-aws-sqs reads the older AttributeNames; AWS reads MessageSystemAttributeNames.
        AttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: signal },
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return 0;
    const event: SQSEvent = { Records: messages.map((m) => toSqsRecord(m, trigger.queue)) };
    let toDelete: SQSRecord[] = [];
    try {
      const result = await slot.invoke(handler, event);
      const failed = batchItemFailures(result);
      if (failed === null) {
        log(`pollers: ${slot.worker.name} returned a malformed batchItemFailures: the whole batch is retried`);
      } else {
        const failedIds = new Set(failed ?? []);
        const known = new Set(event.Records.map((r) => r.messageId));
        if ([...failedIds].some((id) => !known.has(id))) {
          log(`pollers: ${slot.worker.name} reported an unknown itemIdentifier: the whole batch is retried`);
        } else {
          toDelete = event.Records.filter((r) => !failedIds.has(r.messageId));
          if (failedIds.size > 0) log(`pollers: ${slot.worker.name} failed ${failedIds.size}/${messages.length} message(s) of ${trigger.queue}`);
        }
      }
    } catch (error) {
      log(`pollers: ${slot.worker.name} failed on ${messages.length} message(s) of ${trigger.queue}: ${errorText(error)}`);
    }
    for (let i = 0; i < toDelete.length; i += 10) {
      const chunk = toDelete.slice(i, i + 10);
      const res = await sqsClient().send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
        }),
      );
      if (res.Failed && res.Failed.length > 0) log(`pollers: could not delete ${res.Failed.length} message(s) of ${trigger.queue}`);
    }
    return messages.length;
  };

  const queueLoop = async (slot: WorkerSlot): Promise<void> => {
    const wait = options.queueWaitSeconds ?? 1;
    while (!stopped) {
      try {
        await slot.serial(() => (stopped ? Promise.resolve(0) : pollQueue(slot, wait)));
      } catch (error) {
        if (stopped) break;
        log(`pollers: ${slot.worker.name}: ${errorText(error)}`);
        await pause(1_000, signal);
      }
    }
  };

  /* ---------------------------------------------------------------- stream */

  const streamOptions = options.stream ?? {};
  const streamBatchSize = streamOptions.batchSize ?? 100;
  const streamPollMs = streamOptions.pollIntervalMs ?? 250;
  const retryAttempts = streamOptions.retryAttempts ?? DEFAULT_RETRY_ATTEMPTS;
  const retryDelayMs = streamOptions.retryDelayMs ?? 500;
  const failureQueue = streamOptions.failureQueue ?? DEFAULT_FAILURE_QUEUE;
  const filter = streamOptions.filter ?? outboxFilter;

  interface StreamState {
    streamArn: string | undefined;
    shards: Map<string, ShardState>;
    lastDescribe: number;
    checkpointWrite: Promise<void>;
  }
  const streamStates = new Map<string, StreamState>();
  const checkpointFile = (name: string): string | undefined =>
    options.dataDir ? join(options.dataDir, 'checkpoints', `${name}.json`) : undefined;

  const saveCheckpoint = (name: string, state: StreamState): void => {
    const file = checkpointFile(name);
    if (!file || !state.streamArn) return;
    const data: Checkpoint = { streamArn: state.streamArn, shards: {} };
    for (const s of state.shards.values()) {
      data.shards[s.shardId] = { ...(s.sequenceNumber ? { sequenceNumber: s.sequenceNumber } : {}), ...(s.done ? { done: true } : {}) };
    }
    const text = `${JSON.stringify(data, null, 1)}\n`;
    state.checkpointWrite = state.checkpointWrite
      .then(async () => {
        await mkdir(join(file, '..'), { recursive: true });
        await writeFile(`${file}.tmp`, text);
        await rename(`${file}.tmp`, file);
      })
      .catch((error: unknown) => log(`pollers: cannot write checkpoint ${file}: ${errorText(error)}`));
  };

  const loadCheckpoint = async (name: string): Promise<Checkpoint | undefined> => {
    const file = checkpointFile(name);
    if (!file) return undefined;
    try {
      const data: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (isRecord(data) && typeof data.streamArn === 'string' && isRecord(data.shards)) return data as unknown as Checkpoint;
    } catch {
      // No checkpoint yet (or unreadable): start from the trim horizon.
    }
    return undefined;
  };

  /** Finds the stream and its shards (again when a shard closed, or every 10 s). */
  const refreshShards = async (name: string, state: StreamState): Promise<void> => {
    const { ddb: dynamodb, streams: client } = streamClients();
    if (!state.streamArn) {
      let arn: string | undefined;
      try {
        arn = (await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }), { abortSignal: signal })).Table
          ?.LatestStreamArn;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return;
        throw error;
      }
      if (!arn) return;
      state.streamArn = arn;
      const checkpoint = await loadCheckpoint(name);
      if (checkpoint && checkpoint.streamArn === arn) {
        for (const [shardId, c] of Object.entries(checkpoint.shards)) {
          state.shards.set(shardId, { shardId, parentShardId: undefined, iterator: undefined, sequenceNumber: c.sequenceNumber, done: c.done === true });
        }
      }
    }
    const found: Shard[] = [];
    let start: string | undefined;
    do {
      const res = await client.send(new DescribeStreamCommand({ StreamArn: state.streamArn, ExclusiveStartShardId: start }), {
        abortSignal: signal,
      });
      found.push(...(res.StreamDescription?.Shards ?? []));
      start = res.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    for (const shard of found) {
      if (!shard.ShardId) continue;
      const known = state.shards.get(shard.ShardId);
      if (known) {
        if (!known.parentShardId && shard.ParentShardId) state.shards.set(shard.ShardId, { ...known, parentShardId: shard.ParentShardId });
      } else {
        state.shards.set(shard.ShardId, {
          shardId: shard.ShardId,
          parentShardId: shard.ParentShardId,
          iterator: undefined,
          sequenceNumber: undefined,
          done: false,
        });
      }
    }
    // Shards trimmed away (no longer described) are forgotten once finished.
    const present = new Set(found.map((s) => s.ShardId));
    for (const [id, s] of state.shards) if (!present.has(id) && s.done) state.shards.delete(id);
    state.lastDescribe = Date.now();
  };

  const sendToFailureQueue = async (slot: WorkerSlot, streamArn: string, shardId: string, batch: DynamoDBRecord[], attempts: number, error: string): Promise<void> => {
    const first = batch[0]?.dynamodb;
    const last = batch[batch.length - 1]?.dynamodb;
    const iso = (seconds: number | undefined): string | undefined => (seconds === undefined ? undefined : new Date(seconds * 1000).toISOString());
    // Lambda's on-failure invocation record, plus the records themselves (a local convenience).
    const body = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: `arn:aws:lambda:${region}:${ACCOUNT_ID}:function:${slot.worker.name}`,
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: attempts,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: first?.SequenceNumber,
        endSequenceNumber: last?.SequenceNumber,
        approximateArrivalOfFirstRecord: iso(first?.ApproximateCreationDateTime),
        approximateArrivalOfLastRecord: iso(last?.ApproximateCreationDateTime),
        batchSize: batch.length,
        streamArn,
      },
      error,
      records: batch,
    };
    await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrlOf(failureQueue), MessageBody: JSON.stringify(body) }));
    log(`pollers: ${slot.worker.name}: ${batch.length} stream record(s) sent to ${failureQueue} after ${attempts} attempt(s): ${error}`);
  };

  /**
   * Delivers filtered records of one shard in order, like Lambda with ReportBatchItemFailures and
   * BisectBatchOnFunctionError: a reported failure retries from the first failed record; an error splits the
   * batch in two; a single record failing `retryAttempts` more times goes to the failure queue.
   * `advance(seq)` is called as records are done with.
   */
  const deliverStream = async (
    slot: WorkerSlot,
    handler: WorkerHandler,
    streamArn: string,
    shardId: string,
    records: DynamoDBRecord[],
    advance: (sequenceNumber: string) => void,
  ): Promise<void> => {
    const pending: { batch: DynamoDBRecord[]; attempts: number }[] = [];
    for (let i = 0; i < records.length; i += streamBatchSize) pending.push({ batch: records.slice(i, i + streamBatchSize), attempts: 0 });
    while (pending.length > 0) {
      if (stopped) throw new Stopped();
      const current = pending[0] as { batch: DynamoDBRecord[]; attempts: number };
      const seqOf = (r: DynamoDBRecord): string => r.dynamodb?.SequenceNumber ?? '';
      let failedFrom = 0;
      let why: string;
      try {
        const result = await slot.invoke(handler, { Records: current.batch } satisfies DynamoDBStreamEvent);
        const failed = batchItemFailures(result);
        if (failed === undefined || (failed !== null && failed.length === 0)) {
          pending.shift();
          advance(seqOf(current.batch[current.batch.length - 1] as DynamoDBRecord));
          continue;
        }
        if (failed === null) {
          why = 'malformed batchItemFailures';
        } else {
          const positions = failed.map((id) => current.batch.findIndex((r) => seqOf(r) === id));
          if (positions.some((p) => p < 0)) {
            why = 'unknown itemIdentifier in batchItemFailures';
          } else {
            failedFrom = Math.min(...positions);
            why = `batchItemFailures from ${failed.length} record(s)`;
          }
        }
      } catch (error) {
        why = errorText(error);
      }
      if (failedFrom > 0) {
        // Records before the first failure are done; retry from it.
        advance(seqOf(current.batch[failedFrom - 1] as DynamoDBRecord));
        current.batch = current.batch.slice(failedFrom);
      }
      if (current.batch.length > 1) {
        // Bisect: each half is retried on its own (splitting does not use up retries).
        const half = Math.ceil(current.batch.length / 2);
        pending.splice(0, 1, { batch: current.batch.slice(0, half), attempts: 0 }, { batch: current.batch.slice(half), attempts: 0 });
        log(`pollers: ${slot.worker.name}: stream batch failed (${why}); bisecting`);
        continue;
      }
      current.attempts++;
      if (current.attempts > retryAttempts) {
        await sendToFailureQueue(slot, streamArn, shardId, current.batch, current.attempts, why);
        pending.shift();
        advance(seqOf(current.batch[0] as DynamoDBRecord));
        continue;
      }
      log(`pollers: ${slot.worker.name}: stream record ${seqOf(current.batch[0] as DynamoDBRecord)} failed (${why}); retry ${current.attempts}/${retryAttempts}`);
      await pause(Math.min(10_000, retryDelayMs * 2 ** (current.attempts - 1)), signal);
    }
  };

  /** One pass over the readable shards; returns the number of stream records read. */
  const pollStream = async (slot: WorkerSlot): Promise<number> => {
    const name = slot.worker.name;
    let state = streamStates.get(name);
    if (!state) {
      state = { streamArn: undefined, shards: new Map(), lastDescribe: 0, checkpointWrite: Promise.resolve() };
      streamStates.set(name, state);
    }
    if (!state.streamArn || Date.now() - state.lastDescribe > 10_000) await refreshShards(name, state);
    const streamArn = state.streamArn;
    if (!streamArn) return 0;
    const handler = await slot.load();
    if (!handler) {
      await pause(2_000, signal);
      return 0;
    }
    const { streams: client } = streamClients();
    let read = 0;
    let shardClosed = false;
    for (const shard of [...state.shards.values()]) {
      if (shard.done || stopped) continue;
      // Parents first: a child is read only after its parent is finished (or gone).
      const parent = shard.parentShardId ? state.shards.get(shard.parentShardId) : undefined;
      if (parent && !parent.done) continue;
      try {
        if (!shard.iterator) {
          const it = await client.send(
            new GetShardIteratorCommand(
              shard.sequenceNumber
                ? { StreamArn: streamArn, ShardId: shard.shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.sequenceNumber }
                : { StreamArn: streamArn, ShardId: shard.shardId, ShardIteratorType: streamOptions.startingPosition ?? 'TRIM_HORIZON' },
            ),
            { abortSignal: signal },
          );
          shard.iterator = it.ShardIterator;
          if (!shard.iterator) {
            shard.done = true;
            shardClosed = true;
            continue;
          }
        }
        const res = await client.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: 1000 }), { abortSignal: signal });
        const raw = res.Records ?? [];
        read += raw.length;
        if (raw.length > 0) {
          const all = raw.map((r) => toLambdaStreamRecord(r, streamArn));
          const selected = all.filter(filter);
          const lastSeq = all[all.length - 1]?.dynamodb?.SequenceNumber;
          const advance = (seq: string): void => {
            shard.sequenceNumber = seq;
            saveCheckpoint(name, state);
          };
          if (selected.length > 0) {
            try {
              await deliverStream(slot, handler, streamArn, shard.shardId, selected, advance);
            } catch (error) {
              // Stopped mid-batch: resume after the last record done with, next time.
              shard.iterator = undefined;
              throw error;
            }
          }
          // Records the filter dropped count as processed, as with Lambda's event filtering.
          if (lastSeq) advance(lastSeq);
        }
        shard.iterator = res.NextShardIterator;
        if (!shard.iterator) {
          shard.done = true;
          shardClosed = true;
          saveCheckpoint(name, state);
        }
      } catch (error) {
        if (error instanceof ExpiredIteratorException) {
          shard.iterator = undefined;
        } else if (error instanceof TrimmedDataAccessException) {
          // The checkpoint fell off the stream's 24 h window: continue from the oldest record still there.
          log(`pollers: ${name}: shard ${shard.shardId} trimmed past the checkpoint; continuing from TRIM_HORIZON`);
          shard.iterator = undefined;
          shard.sequenceNumber = undefined;
        } else if (isRecord(error) && error.name === 'ResourceNotFoundException') {
          // Table or stream recreated: start over with the new stream.
          state.streamArn = undefined;
          state.shards.clear();
          return read;
        } else {
          throw error;
        }
      }
    }
    if (shardClosed) state.lastDescribe = 0;
    return read;
  };

  const streamLoop = async (slot: WorkerSlot): Promise<void> => {
    while (!stopped) {
      let read = 0;
      try {
        read = await slot.serial(() => (stopped ? Promise.resolve(0) : pollStream(slot)));
      } catch (error) {
        if (stopped || error instanceof Stopped) break;
        log(`pollers: ${slot.worker.name}: ${errorText(error)}`);
        await pause(1_000, signal);
      }
      if (read === 0) await pause(streamPollMs, signal);
    }
  };

  /* ---------------------------------------------------------------- schedules */

  const scheduleOptions = options.schedule ?? {};
  const scheduledEvent = (slot: WorkerSlot): ScheduledEvent => ({
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: ACCOUNT_ID,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:${ACCOUNT_ID}:rule/${slot.worker.name}-schedule`],
    detail: {},
  });

  const runScheduled = async (slot: WorkerSlot): Promise<void> => {
    const handler = await slot.load();
    if (!handler) return;
    const started = Date.now();
    try {
      await slot.invoke(handler, scheduledEvent(slot));
    } catch (error) {
      log(`pollers: ${slot.worker.name} (scheduled) failed after ${Date.now() - started} ms: ${errorText(error)}`);
    }
  };

  const timers = new Set<NodeJS.Timeout>();
  const scheduleLoop = (slot: WorkerSlot): Promise<void> => {
    const trigger = slot.worker.trigger;
    if (trigger.kind !== 'schedule') return Promise.resolve();
    const interval = scheduleOptions.intervalMs ? scheduleOptions.intervalMs(trigger.everyMinutes) : trigger.everyMinutes * 60_000;
    return new Promise<void>((done) => {
      const next = (delay: number): void => {
        if (stopped) return done();
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (stopped) return done();
          const started = Date.now();
          // Never two runs at once: the next one is planned when this one ends.
          void slot
            .serial(() => (stopped ? Promise.resolve() : runScheduled(slot)))
            .then(() => next(Math.max(0, started + interval - Date.now())));
        }, delay);
        timers.add(timer);
      };
      next(scheduleOptions.firstRunDelayMs ?? 2_000);
      signal.addEventListener('abort', () => done(), { once: true });
    });
  };

  /* ---------------------------------------------------------------- lifecycle */

  const loops: Promise<void>[] = [];
  if (options.autoStart !== false) {
    for (const slot of slots.values()) {
      const kind = slot.worker.trigger.kind;
      loops.push(kind === 'queue' ? queueLoop(slot) : kind === 'stream' ? streamLoop(slot) : scheduleLoop(slot));
    }
    if (slots.size > 0) log(`pollers: ${slots.size} worker(s): ${[...slots.values()].map((s) => `${s.worker.name} (${s.worker.trigger.kind})`).join(', ')}`);
  }

  return {
    workers: [...slots.keys()],
    runOnce: async (name) => {
      const slot = slots.get(name);
      if (!slot) throw new Error(`no worker named ${name}`);
      const kind = slot.worker.trigger.kind;
      await slot.serial(async () => {
        if (kind === 'queue') await pollQueue(slot, 0);
        else if (kind === 'stream') await pollStream(slot);
        else await runScheduled(slot);
      });
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      controller.abort();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      // A handler in flight finishes (up to 10 s), as a Lambda invocation would.
      await Promise.race([Promise.allSettled(loops), new Promise((r) => setTimeout(r, 10_000).unref())]);
      await Promise.allSettled([...streamStates.values()].map((s) => s.checkpointWrite));
      sqs?.destroy();
      ddb?.destroy();
      streams?.destroy();
    },
  };
}
