/**
 * An SQS-compatible server (npm `local-aws-sqs`, in memory, spoken to by the real @aws-sdk/client-sqs) with
 * every queue of infra/definition.ts and its dead-letter queue, configured as CDK's GatewayQueues does.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Server } from 'node:http';
import { createSqsServer } from 'local-aws-sqs';
import { QUEUES, WORKER_FUNCTIONS } from '../definition.js';
import type { QueueDefinition, QueueName } from '../definition.js';

/** A queue consumer as far as the visibility timeout cares (a WorkerFunction, or a test worker). */
export interface QueueConsumer {
  /** `queue`: its queue trigger's; `wakeQueue`: the queue that wakes a scheduled worker (both consume the queue). */
  readonly trigger: { readonly kind: string; readonly queue?: string; readonly wakeQueue?: string };
  readonly timeoutSeconds: number;
}

/** Same rule as infra/cdk/constructs/queues.ts: visibility >= 6 x the longest consumer timeout. */
const VISIBILITY_PER_CONSUMER_TIMEOUT = 6;
/** DLQ retention: the longest SQS allows (14 days), as in CDK. */
const DLQ_RETENTION_SECONDS = 14 * 24 * 3600;

export const LOCAL_ACCOUNT_ID = '123456789012';

export interface StartSqsOptions {
  readonly host?: string;
  /** 0 or undefined: a free port. */
  readonly port?: number;
  readonly region?: string;
  readonly queues?: readonly QueueDefinition[];
  /** Consumers, for the visibility timeout rule (default: WORKER_FUNCTIONS). */
  readonly workers?: readonly QueueConsumer[];
  /** Overrides every queue's visibility timeout (tests: seconds instead of minutes). */
  readonly visibilityTimeoutSeconds?: number;
  readonly log?: (line: string) => void;
}

export interface LocalSqs {
  /** Endpoint for AWS_ENDPOINT_URL_SQS, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly port: number;
  readonly queueUrls: Record<QueueName, string>;
  readonly dlqUrls: Record<QueueName, string>;
  readonly queueArns: Record<QueueName, string>;
  readonly client: SQSClient;
  close(): Promise<void>;
}

export function sqsClient(url: string, region = 'us-east-1'): SQSClient {
  return new SQSClient({ endpoint: url, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/** Visibility timeout of a queue: its own, raised to 6 x the longest timeout of the workers consuming it. */
export function visibilityTimeout(definition: QueueDefinition, workers: readonly QueueConsumer[]): number {
  let consumer = 0;
  for (const w of workers) {
    const consumed = w.trigger.kind === 'queue' ? w.trigger.queue : w.trigger.wakeQueue;
    if (consumed === definition.name) consumer = Math.max(consumer, w.timeoutSeconds);
  }
  return Math.max(definition.visibilityTimeoutSeconds, VISIBILITY_PER_CONSUMER_TIMEOUT * consumer);
}

export async function startSqs(options: StartSqsOptions = {}): Promise<LocalSqs> {
  const host = options.host ?? '127.0.0.1';
  const region = options.region ?? 'us-east-1';
  const queues = options.queues ?? QUEUES;
  const workers = options.workers ?? WORKER_FUNCTIONS;
  const server: Server = await createSqsServer({
    port: options.port ?? 0,
    hostname: host,
    region,
    accountId: LOCAL_ACCOUNT_ID,
    // A fresh process starts empty: no need to emulate AWS's 60 s wait after deleting a queue.
    emulateQueueCreationLifecycle: false,
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('SQS server has no address');
  const url = `http://${host}:${address.port}`;
  const client = sqsClient(url, region);
  const close = async (): Promise<void> => {
    client.destroy();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  };

  try {
    const queueUrls = {} as Record<QueueName, string>;
    const dlqUrls = {} as Record<QueueName, string>;
    const queueArns = {} as Record<QueueName, string>;
    for (const definition of queues) {
      const dlq = await client.send(
        new CreateQueueCommand({
          QueueName: `${definition.name}-dlq`,
          Attributes: { MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS) },
        }),
      );
      if (!dlq.QueueUrl) throw new Error(`CreateQueue ${definition.name}-dlq returned no URL`);
      const dlqArn = (await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
      if (!dlqArn) throw new Error(`queue ${definition.name}-dlq has no ARN`);
      const visibility = options.visibilityTimeoutSeconds ?? visibilityTimeout(definition, workers);
      const queue = await client.send(
        new CreateQueueCommand({
          QueueName: definition.name,
          Attributes: {
            VisibilityTimeout: String(visibility),
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: definition.maxReceiveCount }),
          },
        }),
      );
      if (!queue.QueueUrl) throw new Error(`CreateQueue ${definition.name} returned no URL`);
      queueUrls[definition.name] = queue.QueueUrl;
      dlqUrls[definition.name] = dlq.QueueUrl;
      queueArns[definition.name] = `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${definition.name}`;
    }
    options.log?.(`sqs: SQS on ${url} (${queues.length} queues, each with a DLQ)`);
    return { url, port: address.port, queueUrls, dlqUrls, queueArns, client, close };
  } catch (error) {
    await close();
    throw error;
  }
}
