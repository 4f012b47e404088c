import type { MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config/config.js';
import { errorField, logger } from '../observability/logger.js';
import type { QueueSender } from '../usecases/events/ports.js';
import type { QueueName } from '../domain/queues.js';
import type { QueueMessage } from '../domain/queues.js';
import { queueUrlEnv } from '../domain/queues.js';
import { traced } from '../observability/client-tracing.js';

/**
 * The SQS sender. One client per process (created on first use; `AWS_ENDPOINT_URL_SQS` points it at the
 * local SQS server), its module loaded then too: the API Lambdas that can send (the user group's test webhooks)
 * start without it. Queue URLs come from the environment variables `queueUrlEnv(name)` names, which CDK and the
 * local stack set.
 */

let client: SQSClient | undefined;

const sdk = () => import('@aws-sdk/client-sqs');

export async function sqs(): Promise<SQSClient> {
  const { SQSClient } = await sdk();
  client ??= traced(new SQSClient({ region: config().AWS_REGION, maxAttempts: 5 }));
  return client;
}

/** Drop the client (tests, local stack). */
export function resetSqs(): void {
  client?.destroy();
  client = undefined;
}

export function queueUrl(name: QueueName): string {
  const url = process.env[queueUrlEnv(name)];
  if (!url) throw new Error(`Queue URL for ${name} is not configured (${queueUrlEnv(name)})`);
  return url;
}

export type OutgoingMessage = QueueMessage;

const MAX_BATCH = 10;
/** SQS batch entry ids: letters, digits, hyphen and underscore, up to 80. */
const entryId = (i: number) => `m${i}`;

function attributesOf(attributes: Readonly<Record<string, string>> | undefined): Record<string, MessageAttributeValue> | undefined {
  if (!attributes) return undefined;
  return Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }]));
}

function delayOf(seconds: number | undefined): number | undefined {
  if (seconds === undefined) return undefined;
  return Math.max(0, Math.min(900, Math.floor(seconds)));
}

/**
 * Sends messages with SendMessageBatch, ten per call, the calls side by side (a stream batch of 100 events costs
 * one round trip, not ten). Resolves to the ids of the messages SQS did not accept (a failed call fails all of
 * its messages), in the order given; never throws for a partial failure.
 */
export async function sendBatch(queue: string, messages: readonly OutgoingMessage[]): Promise<string[]> {
  const [{ SendMessageBatchCommand }, client] = await Promise.all([sdk(), sqs()]);
  const chunks: OutgoingMessage[][] = [];
  for (let start = 0; start < messages.length; start += MAX_BATCH) chunks.push(messages.slice(start, start + MAX_BATCH));
  const failed = await Promise.all(
    chunks.map(async (chunk): Promise<string[]> => {
      try {
        const result = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queue,
            Entries: chunk.map((m, i) => ({
              Id: entryId(i),
              MessageBody: m.body,
              DelaySeconds: delayOf(m.delaySeconds),
              MessageAttributes: attributesOf(m.attributes),
            })),
          }),
        );
        const refused = new Set((result.Failed ?? []).map((f) => Number((f.Id ?? '').slice(1))));
        return chunk.filter((_, i) => refused.has(i)).map((m) => m.id);
      } catch (error) {
        logger.error('SendMessageBatch failed', { queue, error: errorField(error) });
        return chunk.map((m) => m.id);
      }
    }),
  );
  return failed.flat();
}

/** The queue-sender port over SQS: queue names resolved to the URLs the environment gives. */
export const sqsQueueSender: QueueSender = {
  sendBatch: (queue, messages) => sendBatch(queueUrl(queue), messages),
};
