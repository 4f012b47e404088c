/**
 * Delivery of one shard's filtered records to the stream worker, as Lambda does it with
 * ReportBatchItemFailures and BisectBatchOnFunctionError, and the on-failure destination for a record that
 * keeps failing.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { LOCAL_ACCOUNT_ID } from '../lambda/runtime.js';
import { Stopped, batchItemFailures, errorText, pause } from './worker.js';
import type { SourceEnv, WorkerHandler, WorkerSlot } from './worker.js';

export interface DeliveryOptions {
  readonly batchSize: number;
  readonly retryAttempts: number;
  readonly retryDelayMs: number;
  /** Queue name of the on-failure destination. */
  readonly failureQueue: string;
}

/** The worker and the shard being delivered. */
export interface ShardDelivery {
  readonly slot: WorkerSlot;
  readonly handler: WorkerHandler;
  readonly streamArn: string;
  readonly shardId: string;
}

const seqOf = (r: DynamoDBRecord): string => r.dynamodb?.SequenceNumber ?? '';

async function sendToFailureQueue(
  env: SourceEnv,
  options: DeliveryOptions,
  to: ShardDelivery,
  batch: DynamoDBRecord[],
  attempts: number,
  error: string,
): Promise<void> {
  const first = batch[0]?.dynamodb;
  const last = batch[batch.length - 1]?.dynamodb;
  const iso = (seconds: number | undefined): string | undefined => (seconds === undefined ? undefined : new Date(seconds * 1000).toISOString());
  // Lambda's on-failure invocation record, plus the records themselves (a local convenience).
  const body = {
    requestContext: {
      requestId: randomUUID(),
      functionArn: `arn:aws:lambda:${env.region}:${LOCAL_ACCOUNT_ID}:function:${to.slot.worker.name}`,
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: attempts,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: new Date().toISOString(),
    DDBStreamBatchInfo: {
      shardId: to.shardId,
      startSequenceNumber: first?.SequenceNumber,
      endSequenceNumber: last?.SequenceNumber,
      approximateArrivalOfFirstRecord: iso(first?.ApproximateCreationDateTime),
      approximateArrivalOfLastRecord: iso(last?.ApproximateCreationDateTime),
      batchSize: batch.length,
      streamArn: to.streamArn,
    },
    error,
    records: batch,
  };
  await env.sqs().send(new SendMessageCommand({ QueueUrl: env.queueUrl(options.failureQueue), MessageBody: JSON.stringify(body) }));
  env.log(`pollers: ${to.slot.worker.name}: ${batch.length} stream record(s) sent to ${options.failureQueue} after ${attempts} attempt(s): ${error}`);
}

/**
 * Delivers filtered records of one shard in order: a reported failure retries from the first failed record; an
 * error splits the batch in two; a single record failing `retryAttempts` more times goes to the failure queue.
 * `advance(seq)` is called as records are done with. Throws Stopped when the pollers stop in between.
 */
export async function deliverStreamRecords(
  env: SourceEnv,
  options: DeliveryOptions,
  to: ShardDelivery,
  records: DynamoDBRecord[],
  advance: (sequenceNumber: string) => void,
): Promise<void> {
  const { slot, handler } = to;
  const pending: { batch: DynamoDBRecord[]; attempts: number }[] = [];
  for (let i = 0; i < records.length; i += options.batchSize) pending.push({ batch: records.slice(i, i + options.batchSize), attempts: 0 });
  while (pending.length > 0) {
    if (env.stopped()) throw new Stopped();
    const current = pending[0] as { batch: DynamoDBRecord[]; attempts: number };
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
      env.log(`pollers: ${slot.worker.name}: stream batch failed (${why}); bisecting`);
      continue;
    }
    current.attempts++;
    if (current.attempts > options.retryAttempts) {
      await sendToFailureQueue(env, options, to, current.batch, current.attempts, why);
      pending.shift();
      advance(seqOf(current.batch[0] as DynamoDBRecord));
      continue;
    }
    env.log(
      `pollers: ${slot.worker.name}: stream record ${seqOf(current.batch[0] as DynamoDBRecord)} failed (${why}); retry ${current.attempts}/${options.retryAttempts}`,
    );
    await pause(Math.min(10_000, options.retryDelayMs * 2 ** (current.attempts - 1)), env.signal);
  }
}
