/**
 * The SQS event source, as Lambda's SQS event source mapping: receives batches from the worker's queue (batch
 * size as defined), calls the handler with an SQS event and deletes what succeeded (partial batch responses:
 * `batchItemFailures`); a throw deletes nothing, so the messages come back after the visibility timeout, and the
 * SQS server moves them to the DLQ after maxReceiveCount.
 *
 * SQS answers a receive as soon as messages are there, with as many as it has up to the batch size; the local
 * SQS server holds it until it has exactly as many as asked for, or the wait is over (some 40 ms without a long
 * poll). So the source first asks how many messages are waiting, and receives that many (up to the batch size)
 * at once, or long-polls for one when none is (answered as soon as one arrives): a backlog is taken in full
 * batches, a trickle message by message, as Lambda's poller would. A worker whose trigger sets `maxConcurrency`
 * gets up to min(5, maxConcurrency) batches processed at once (Lambda starts with five concurrent batches);
 * others one at a time. A scheduled worker with a wake queue is fed from it too, under the same lock as its
 * scheduled runs (never two runs at once, as in `scheduleSource`).
 */
import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { queueTriggerOf } from '../../definition.js';
import { LOCAL_ACCOUNT_ID } from '../lambda/runtime.js';
import { batchItemFailures, errorText, pause } from './worker.js';
import type { PollerTrigger, Source, SourceEnv, WorkerHandler, WorkerSlot } from './worker.js';

export interface QueueOptions {
  /** Long-poll wait of ReceiveMessage on an idle queue (s); default 1. */
  readonly waitSeconds?: number;
}

/** Batches Lambda processes at once when messages arrive, before it scales further; the local source stops there. */
export const LOCAL_MAX_BATCHES = 5;

/** How many batches of this worker may be processed at once on the local stack. */
export function localBatchConcurrency(trigger: PollerTrigger): number {
  const queue = queueTriggerOf(trigger);
  if (queue?.maxConcurrency === undefined) return 1;
  return Math.max(1, Math.min(LOCAL_MAX_BATCHES, queue.maxConcurrency));
}

/** A received message as Lambda's SQS event record. */
function toSqsRecord(m: Message, queue: string, region: string): SQSRecord {
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
    eventSourceARN: `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${queue}`,
    awsRegion: region,
  };
}

interface Received {
  readonly handler: WorkerHandler;
  readonly queue: string;
  readonly queueUrl: string;
  readonly messages: Message[];
}

export function queueSource(env: SourceEnv, options: QueueOptions = {}): Source {
  const { log, signal } = env;

  /**
   * Messages ready to be received. The local server counts the messages in flight in ApproximateNumberOfMessages
   * (SQS does not) as well as in ApproximateNumberOfMessagesNotVisible, and delayed ones in neither: the
   * difference is what a receive gets at once.
   */
  const waiting = async (queueUrl: string): Promise<number> => {
    const { Attributes: a } = await env
      .sqs()
      .send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }), {
        abortSignal: signal,
      });
    return Math.max(0, Number(a?.ApproximateNumberOfMessages ?? 0) - Number(a?.ApproximateNumberOfMessagesNotVisible ?? 0));
  };

  /**
   * One ReceiveMessage: as many messages as are waiting, up to the batch size, at once; or, none waiting, one,
   * waiting up to `waitSeconds` for it. Null when none came.
   */
  const receive = async (slot: WorkerSlot, waitSeconds: number): Promise<Received | null> => {
    const trigger = queueTriggerOf(slot.worker.trigger);
    if (trigger === null) return null;
    const handler = await slot.load();
    if (!handler) {
      await pause(2_000, signal);
      return null;
    }
    const queueUrl = env.queueUrl(trigger.queue);
    const ready = await waiting(queueUrl);
    const received = await env.sqs().send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, Math.max(1, trigger.batchSize), Math.max(1, ready)),
        WaitTimeSeconds: ready > 0 ? 0 : waitSeconds,
        // local-aws-sqs reads the older AttributeNames; AWS reads MessageSystemAttributeNames.
        AttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: signal },
    );
    const messages = received.Messages ?? [];
    return messages.length === 0 ? null : { handler, queue: trigger.queue, queueUrl, messages };
  };

  /** Calls the handler with one batch and deletes what succeeded. */
  const deliver = async (slot: WorkerSlot, { handler, queue, queueUrl, messages }: Received): Promise<void> => {
    const event: SQSEvent = { Records: messages.map((m) => toSqsRecord(m, queue, env.region)) };
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
          if (failedIds.size > 0) log(`pollers: ${slot.worker.name} failed ${failedIds.size}/${messages.length} message(s) of ${queue}`);
        }
      }
    } catch (error) {
      log(`pollers: ${slot.worker.name} failed on ${messages.length} message(s) of ${queue}: ${errorText(error)}`);
    }
    for (let i = 0; i < toDelete.length; i += 10) {
      const chunk = toDelete.slice(i, i + 10);
      const res = await env.sqs().send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
        }),
      );
      if (res.Failed && res.Failed.length > 0) log(`pollers: could not delete ${res.Failed.length} message(s) of ${queue}`);
    }
  };

  return {
    once: async (slot) => {
      const batch = await receive(slot, 0);
      if (batch) await deliver(slot, batch);
      return batch?.messages.length ?? 0;
    },
    loop: async (slot) => {
      const wait = options.waitSeconds ?? 1;
      const limit = localBatchConcurrency(slot.worker.trigger);
      const running = new Set<Promise<void>>();
      while (!env.stopped()) {
        try {
          while (running.size >= limit) await Promise.race(running);
          const received = await slot.serial(async () => {
            if (env.stopped()) return null;
            const batch = await receive(slot, wait);
            // One at a time: the batch is processed under the worker's lock, before the next receive.
            if (batch && limit === 1) await deliver(slot, batch);
            return batch;
          });
          if (received && limit > 1) {
            const done: Promise<void> = deliver(slot, received)
              .catch((error: unknown) => log(`pollers: ${slot.worker.name}: ${errorText(error)}`))
              .finally(() => running.delete(done));
            running.add(done);
          }
        } catch (error) {
          if (env.stopped()) break;
          log(`pollers: ${slot.worker.name}: ${errorText(error)}`);
          await pause(1_000, signal);
        }
      }
      await Promise.allSettled(running);
    },
    close: () => Promise.resolve(),
  };
}
