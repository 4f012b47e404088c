import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, ScheduledEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Log } from '../observability/logger.js';
import { childLogger, errorField } from '../observability/logger.js';
import { withTrace } from '../observability/tracing.js';

/**
 * The adapters between Lambda and the gateway's workers: SQS and DynamoDB-stream batches on
 * `@aws-lambda-powertools/batch`, and EventBridge schedules (`scheduledWorker`). For a batch, each record is handled on its own, and the answer names the records that
 * failed (`{batchItemFailures: [{itemIdentifier}]}`: the SQS message id, or the stream sequence number), so
 * only those come back. A batch in which every record failed is answered the same way (not thrown), as the
 * local stack's pollers and the event source mappings both expect. Every line a worker logs carries its name
 * and the Lambda request id.
 *
 * A new worker: `export const handler = sqsWorker('name', async (record, log) => { ... })` (or `scheduledWorker`,
 * `streamBatchWorker`) in `functions/<name>/handler.ts`, its use case wired once at module scope.
 *
 * Each invocation is traced (shared/observability/tracing.ts): a `## <name>` subsegment annotated with the worker,
 * the batch size and the records that failed.
 */

/** Thrown by a worker for a message that must simply come back later (logged at debug, not as an error). */
export class RetryLater extends Error {
  constructor(message = 'to be retried') {
    super(message);
    this.name = 'RetryLater';
  }
}

export interface SqsWorkerOptions {
  /** Handle the batch's records concurrently (default: one after the other, in order). */
  readonly parallel?: boolean;
}

export type SqsWorkerHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;
export type StreamWorkerHandler = (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse>;

/** An SQS worker: `handle` throws for a message that must come back (it is retried, then dead-lettered). */
export function sqsWorker(name: string, handle: (record: SQSRecord, log: Log) => Promise<void>, options: SqsWorkerOptions = {}): SqsWorkerHandler {
  return async (event, context) => {
    const log = childLogger({ worker: name }, context);
    const processor = new BatchProcessor(EventType.SQS);
    const recordHandler = async (record: SQSRecord): Promise<void> => {
      try {
        await handle(record, log);
      } catch (error) {
        if (error instanceof RetryLater) log.debug('message comes back later', { message_id: record.messageId, reason: error.message });
        else log.error('message failed', { message_id: record.messageId, error: errorField(error) });
        throw error;
      }
    };
    return withTrace(name, { worker: name, records: event.Records.length }, async (trace) => {
      const answer = await processPartialResponse(event, recordHandler, processor, {
        context,
        throwOnFullBatchFailure: false,
        processInParallel: options.parallel ?? false,
      });
      trace.annotate({ failed: answer.batchItemFailures.length });
      return answer;
    });
  };
}

/**
 * A stream worker that handles its batch as a whole (the event router sends ten messages per call) and names
 * the records to retry by sequence number; the batch processor turns them into the partial answer.
 */
export function streamBatchWorker(
  name: string,
  handleBatch: (records: readonly DynamoDBRecord[], log: Log) => Promise<ReadonlySet<string>>,
): StreamWorkerHandler {
  return async (event, context) => {
    const log = childLogger({ worker: name }, context);
    return withTrace(name, { worker: name, records: event.Records.length }, async (trace) => {
      const failed = await handleBatch(event.Records, log);
      trace.annotate({ failed: failed.size });
      const processor = new BatchProcessor(EventType.DynamoDBStreams);
      const recordHandler = async (record: DynamoDBRecord): Promise<void> => {
        const sequence = sequenceOf(record);
        if (failed.has(sequence)) throw new Error(`record ${sequence} to be retried`);
      };
      return processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false, processInParallel: false });
    });
  };
}

export const sequenceOf = (record: DynamoDBRecord): string => record.dynamodb?.SequenceNumber ?? '';

/** What a scheduled run is told of its invocation. */
export interface ScheduledRun {
  /** The schedule's time (EventBridge's `time`); null when the event has none (a direct call) or it does not parse. */
  readonly time: Date | null;
  /** Milliseconds left before the invocation's timeout; `fallbackMs` when Lambda gave no context (a direct call). */
  remainingMs(fallbackMs: number): number;
  /**
   * How long a run that loops may go on: what is left of the invocation (a minute, the schedules' period, on a
   * direct call) less `marginMs` for its last step to finish, at least `minMs`.
   */
  budgetMs(marginMs: number, minMs?: number): number;
}

/** Every schedule of the definition fires once a minute (infra/definition.ts). */
const SCHEDULE_PERIOD_MS = 60_000;

export type ScheduledWorkerHandler<R> = (event?: Partial<Pick<ScheduledEvent, 'time'>>, context?: Partial<Context>) => Promise<R>;

/**
 * A worker run by an EventBridge schedule: `run` gets the schedule's time, the invocation's remaining time and the
 * worker's logger (its name and the Lambda request id on every line). Its result is logged once (`scheduled run
 * done`, with how long it took) and answered; an error is logged once (`scheduled run failed`) and thrown again,
 * so the invocation counts as failed (the errors alarm; the local stack's schedule reports it) and the next
 * run of the schedule starts afresh.
 */
export function scheduledWorker<R>(name: string, run: (scheduled: ScheduledRun, log: Log) => Promise<R>): ScheduledWorkerHandler<R> {
  return (event, context) => runScheduled(name, (scheduled, _woken, log) => run(scheduled, log), event, context, null);
}

export interface WakeableWorkerHandler<R> {
  /** Woken by its queue. */
  (event: SQSEvent, context?: Partial<Context>): Promise<SQSBatchResponse>;
  /** Run by its schedule (or called directly). */
  (event?: Partial<Pick<ScheduledEvent, 'time'>>, context?: Partial<Context>): Promise<R>;
}

const isQueueEvent = (event: unknown): event is SQSEvent => Array.isArray((event as Partial<SQSEvent> | undefined)?.Records);

/**
 * A scheduled worker that its wake queue also invokes between its runs (infra/definition.ts, `wakeQueue`): `run` is
 * told the wake messages' bodies (`woken`; null on a scheduled run) and runs as a scheduled run does, logged the
 * same way. A woken run answers an empty partial batch response; one that fails throws, so its messages come back
 * (and, failing for good, reach the queue's dead-letter queue).
 */
export function wakeableWorker<R>(
  name: string,
  run: (scheduled: ScheduledRun, woken: readonly string[] | null, log: Log) => Promise<R>,
): WakeableWorkerHandler<R> {
  const handler = async (event?: Partial<Pick<ScheduledEvent, 'time'>> | SQSEvent, context?: Partial<Context>): Promise<R | SQSBatchResponse> => {
    if (!isQueueEvent(event)) return runScheduled(name, run, event, context, null);
    await runScheduled(
      name,
      run,
      undefined,
      context,
      event.Records.map((r) => r.body),
    );
    return { batchItemFailures: [] };
  };
  return handler as WakeableWorkerHandler<R>;
}

async function runScheduled<R>(
  name: string,
  run: (scheduled: ScheduledRun, woken: readonly string[] | null, log: Log) => Promise<R>,
  event: Partial<Pick<ScheduledEvent, 'time'>> | undefined,
  context: Partial<Context> | undefined,
  woken: readonly string[] | null,
): Promise<R> {
  const log = childLogger({ worker: name }, lambdaContextOf(context));
  const started = Date.now();
  const at = event?.time ? new Date(event.time) : null;
  const remainingMs = (fallbackMs: number): number => context?.getRemainingTimeInMillis?.() ?? fallbackMs;
  const scheduled: ScheduledRun = {
    time: at && !Number.isNaN(at.getTime()) ? at : null,
    remainingMs,
    budgetMs: (marginMs, minMs = 0) => Math.max(minMs, remainingMs(SCHEDULE_PERIOD_MS) - marginMs),
  };
  const how = woken ? 'woken run' : 'scheduled run';
  return withTrace(name, { worker: name, ...(woken ? { records: woken.length } : {}) }, async () => {
    let result: R;
    try {
      result = await run(scheduled, woken, log);
    } catch (error) {
      log.error(`${how} failed`, { error: errorField(error), duration_ms: Date.now() - started });
      throw error;
    }
    log.info(`${how} done`, { result, duration_ms: Date.now() - started });
    return result;
  });
}

/** The context Lambda gave (a direct call may pass only part of one, e.g. the remaining time: then none). */
const lambdaContextOf = (context: Partial<Context> | undefined): Context | undefined =>
  typeof context?.awsRequestId === 'string' ? (context as Context) : undefined;
