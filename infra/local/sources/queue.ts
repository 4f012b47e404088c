/**
 * The SQS event source: long-polls the worker's queue (batch size as defined), calls the handler with an SQS
 * event and deletes what succeeded (partial batch responses: `batchItemFailures`); a throw deletes nothing, so
 * the messages come back after the visibility timeout, and the SQS server moves them to the DLQ after
 * maxReceiveCount.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID } from '../lambda/runtime.js';
import { batchItemFailures, errorText, pause } from './worker.js';
import type { Source, SourceEnv, WorkerSlot } from './worker.js';

export interface QueueOptions {
  /** Long-poll wait of ReceiveMessage (s); default 1. */
  readonly waitSeconds?: number;
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

export function queueSource(env: SourceEnv, options: QueueOptions = {}): Source {
  const { log, signal } = env;

  /** One receive and delivery; returns the number of messages received. */
  const poll = async (slot: WorkerSlot, waitSeconds: number): Promise<number> => {
    const trigger = slot.worker.trigger;
    if (trigger.kind !== 'queue') return 0;
    const handler = await slot.load();
    if (!handler) {
      await pause(2_000, signal);
      return 0;
    }
    const queueUrl = env.queueUrl(trigger.queue);
    const received = await env.sqs().send(
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
    const event: SQSEvent = { Records: messages.map((m) => toSqsRecord(m, trigger.queue, env.region)) };
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
      const res = await env.sqs().send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
        }),
      );
      if (res.Failed && res.Failed.length > 0) log(`pollers: could not delete ${res.Failed.length} message(s) of ${trigger.queue}`);
    }
    return messages.length;
  };

  return {
    once: (slot) => poll(slot, 0),
    loop: async (slot) => {
      const wait = options.waitSeconds ?? 1;
      while (!env.stopped()) {
        try {
          await slot.serial(() => (env.stopped() ? Promise.resolve(0) : poll(slot, wait)));
        } catch (error) {
          if (env.stopped()) break;
          log(`pollers: ${slot.worker.name}: ${errorText(error)}`);
          await pause(1_000, signal);
        }
      }
    },
    close: () => Promise.resolve(),
  };
}
