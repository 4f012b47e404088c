/**
 * The table stream source: reads the table's stream (DynamoDB Streams API of DynamoDB Local), keeps only what
 * the CDK filter keeps (infra/table.ts ROUTED_RECORDS: INSERTs of outbox items, writes of wallet balance rows),
 * honours `batchItemFailures`, bisects a failing batch and sends a record that still fails after the retries to
 * the `event-router-failures` queue, then moves on.
 * Checkpoints (last sequence number per shard) persist in the data dir.
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
import type { Shard } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { checkpointStore } from './checkpoints.js';
import type { Checkpoint } from './checkpoints.js';
import { deliverStreamRecords } from './stream-delivery.js';
import { routedFilter, toLambdaStreamRecord } from './stream-records.js';
import { Stopped, errorText, isRecord, pause } from './worker.js';
import type { Source, SourceEnv, WorkerSlot } from './worker.js';

export interface StreamOptions {
  /** Records per invocation (as CDK: STREAM_BATCH_SIZE, 100). */
  readonly batchSize?: number;
  /**
   * Pause between polls of a stream with nothing for the worker (default 50 ms). Lambda polls each shard 4 times a
   * second (so on AWS a record waits up to 250 ms for its poll); the local stack polls more often, and a poll
   * that found records for the worker is followed by the next at once, as with Lambda.
   */
  readonly pollIntervalMs?: number;
  /** Retries of a failing (single-record) batch before it goes to the failure queue (as CDK: 5). */
  readonly retryAttempts?: number;
  /** First retry delay; doubles per attempt up to 10 s. */
  readonly retryDelayMs?: number;
  /** On-failure destination (queue name in `queueUrls`), as CDK: event-router-failures. */
  readonly failureQueue?: string;
  /** Which records reach the worker (default: the CDK filter, infra/table.ts ROUTED_RECORDS). */
  readonly filter?: (record: DynamoDBRecord) => boolean;
  /** Where reading starts without a checkpoint. */
  readonly startingPosition?: 'TRIM_HORIZON' | 'LATEST';
}

/** Where the table is, and where checkpoints go. */
export interface StreamTarget {
  readonly dynamodbUrl?: string;
  readonly tableName?: string;
  /** Checkpoints go to `<dataDir>/checkpoints/`; null: kept in memory only. */
  readonly dataDir?: string | null;
}

/** As infra/cdk/gateway-stack.ts (STREAM_FAILURE_QUEUE, STREAM_RETRY_ATTEMPTS, STREAM_BATCH_SIZE). */
const DEFAULT_FAILURE_QUEUE = 'event-router-failures';
const DEFAULT_RETRY_ATTEMPTS = 5;
/** Records per GetRecords call (the most DynamoDB Streams returns). */
const GET_RECORDS_LIMIT = 1000;

interface ShardState {
  readonly shardId: string;
  readonly parentShardId: string | undefined;
  iterator: string | undefined;
  sequenceNumber: string | undefined;
  done: boolean;
}

interface StreamState {
  streamArn: string | undefined;
  shards: Map<string, ShardState>;
  lastDescribe: number;
}

export function streamSource(env: SourceEnv, target: StreamTarget, options: StreamOptions = {}): Source {
  const { log, signal } = env;
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const pollMs = options.pollIntervalMs ?? 50;
  const filter = options.filter ?? routedFilter;
  const delivery = {
    batchSize: options.batchSize ?? 100,
    retryAttempts: options.retryAttempts ?? DEFAULT_RETRY_ATTEMPTS,
    retryDelayMs: options.retryDelayMs ?? 500,
    failureQueue: options.failureQueue ?? DEFAULT_FAILURE_QUEUE,
  };
  const checkpoints = checkpointStore(target.dataDir, log);

  let ddb: DynamoDBClient | undefined;
  let streams: DynamoDBStreamsClient | undefined;
  const clients = (): { ddb: DynamoDBClient; streams: DynamoDBStreamsClient } => {
    if (!target.dynamodbUrl || !target.tableName) throw new Error('pollers: stream workers need dynamodbUrl and tableName');
    ddb ??= new DynamoDBClient({ endpoint: target.dynamodbUrl, region: env.region, credentials });
    streams ??= new DynamoDBStreamsClient({ endpoint: target.dynamodbUrl, region: env.region, credentials });
    return { ddb, streams };
  };

  const states = new Map<string, StreamState>();
  const saveCheckpoint = (name: string, state: StreamState): void => {
    if (!state.streamArn) return;
    const data: Checkpoint = { streamArn: state.streamArn, shards: {} };
    for (const s of state.shards.values()) {
      data.shards[s.shardId] = { ...(s.sequenceNumber ? { sequenceNumber: s.sequenceNumber } : {}), ...(s.done ? { done: true } : {}) };
    }
    checkpoints.save(name, data);
  };

  /** Finds the stream and its shards (again when a shard closed, or every 10 s). */
  const refreshShards = async (name: string, state: StreamState): Promise<void> => {
    const { ddb: dynamodb, streams: client } = clients();
    if (!state.streamArn) {
      let arn: string | undefined;
      try {
        arn = (await dynamodb.send(new DescribeTableCommand({ TableName: target.tableName }), { abortSignal: signal })).Table?.LatestStreamArn;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return;
        throw error;
      }
      if (!arn) return;
      state.streamArn = arn;
      const checkpoint = await checkpoints.load(name);
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

  /**
   * One pass over the readable shards; says whether to poll again at once: records were handed to the worker, or a
   * shard answered a full page (more may be waiting behind what the filter dropped).
   */
  const poll = async (slot: WorkerSlot): Promise<boolean> => {
    const name = slot.worker.name;
    let state = states.get(name);
    if (!state) {
      state = { streamArn: undefined, shards: new Map(), lastDescribe: 0 };
      states.set(name, state);
    }
    if (!state.streamArn || Date.now() - state.lastDescribe > 10_000) await refreshShards(name, state);
    const streamArn = state.streamArn;
    if (!streamArn) return false;
    const handler = await slot.load();
    if (!handler) {
      await pause(2_000, signal);
      return false;
    }
    const { streams: client } = clients();
    let again = false;
    let shardClosed = false;
    for (const shard of [...state.shards.values()]) {
      if (shard.done || env.stopped()) continue;
      // Parents first: a child is read only after its parent is finished (or gone).
      const parent = shard.parentShardId ? state.shards.get(shard.parentShardId) : undefined;
      if (parent && !parent.done) continue;
      try {
        if (!shard.iterator) {
          const it = await client.send(
            new GetShardIteratorCommand(
              shard.sequenceNumber
                ? { StreamArn: streamArn, ShardId: shard.shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.sequenceNumber }
                : { StreamArn: streamArn, ShardId: shard.shardId, ShardIteratorType: options.startingPosition ?? 'TRIM_HORIZON' },
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
        const res = await client.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: GET_RECORDS_LIMIT }), { abortSignal: signal });
        const raw = res.Records ?? [];
        if (raw.length >= GET_RECORDS_LIMIT) again = true;
        if (raw.length > 0) {
          const all = raw.map((r) => toLambdaStreamRecord(r, streamArn));
          const selected = all.filter(filter);
          const lastSeq = all[all.length - 1]?.dynamodb?.SequenceNumber;
          const advance = (seq: string): void => {
            shard.sequenceNumber = seq;
            saveCheckpoint(name, state);
          };
          if (selected.length > 0) {
            again = true;
            try {
              await deliverStreamRecords(env, delivery, { slot, handler, streamArn, shardId: shard.shardId }, selected, advance);
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
          return again;
        } else {
          throw error;
        }
      }
    }
    if (shardClosed) state.lastDescribe = 0;
    return again;
  };

  return {
    once: poll,
    loop: async (slot) => {
      while (!env.stopped()) {
        let again = false;
        try {
          again = await slot.serial(() => (env.stopped() ? Promise.resolve(false) : poll(slot)));
        } catch (error) {
          if (env.stopped() || error instanceof Stopped) break;
          log(`pollers: ${slot.worker.name}: ${errorText(error)}`);
          await pause(1_000, signal);
        }
        // Caught up, or only records the filter dropped (the table's other writes): nothing waits for the worker.
        if (!again) await pause(pollMs, signal);
      }
    },
    close: async () => {
      await checkpoints.flushed();
      ddb?.destroy();
      streams?.destroy();
    },
  };
}
