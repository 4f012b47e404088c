import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueDefinition, QueueName } from '../../definition.js';
import { acknowledge } from '../acknowledge.js';

/** A dead-letter queue has no dead-letter queue of its own: its messages wait for a human (and page one). */
export const DLQ_REDRIVE_REASON =
  'A dead-letter queue: nothing consumes it, its messages wait (14 days) for an operator to inspect and redrive them, and its depth alarms; a redrive policy of its own would only move them further away.';

/** The longest retention SQS allows. */
export const MAX_RETENTION = Duration.days(14);
/** SQS caps visibility timeouts at 12 hours. */
const MAX_VISIBILITY_SECONDS = 12 * 60 * 60;
/**
 * AWS guidance for Lambda consumers: visibility >= 6 x function timeout, so a message is not redelivered
 * while a slow batch (plus the poller's retries) is still being processed.
 */
export const VISIBILITY_PER_CONSUMER_TIMEOUT = 6;

export interface GatewayQueue {
  readonly definition: QueueDefinition;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
}

export interface GatewayQueuesProps {
  readonly queues: readonly QueueDefinition[];
  /** Longest timeout (seconds) among the functions that consume each queue; absent = nothing consumes it. */
  readonly consumerTimeoutSeconds: ReadonlyMap<QueueName, number>;
}

/** Every queue of the definition, each with its own dead-letter queue. */
export class GatewayQueues extends Construct {
  private readonly byName = new Map<QueueName, GatewayQueue>();

  constructor(scope: Construct, id: string, props: GatewayQueuesProps) {
    super(scope, id);
    for (const definition of props.queues) {
      if (this.byName.has(definition.name)) throw new Error(`Queue "${definition.name}" is defined twice`);
      const consumerTimeout = props.consumerTimeoutSeconds.get(definition.name);
      const consumed = consumerTimeout !== undefined;
      const visibility = Math.max(definition.visibilityTimeoutSeconds, VISIBILITY_PER_CONSUMER_TIMEOUT * (consumerTimeout ?? 0));
      if (visibility > MAX_VISIBILITY_SECONDS) {
        throw new Error(`Queue "${definition.name}" would need a ${visibility}s visibility timeout (max ${MAX_VISIBILITY_SECONDS}s)`);
      }
      const deadLetterQueue = new Queue(this, `${definition.name}-dlq`, {
        // Time to inspect and redrive after an incident.
        retentionPeriod: MAX_RETENTION,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      acknowledge(deadLetterQueue, 'Serverless-SQSRedrivePolicy', DLQ_REDRIVE_REASON);
      const queue = new Queue(this, definition.name, {
        visibilityTimeout: Duration.seconds(visibility),
        // A queue nothing consumes (e.g. the stream's on-failure queue) waits for a human: keep its messages as
        // long as SQS allows. A consumed queue keeps the default 4 days, shorter than its DLQ's 14, because a
        // message's age in the DLQ counts from its first enqueue.
        ...(consumed ? {} : { retentionPeriod: MAX_RETENTION }),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      });
      this.byName.set(definition.name, { definition, queue, deadLetterQueue });
    }
  }

  get all(): readonly GatewayQueue[] {
    return [...this.byName.values()];
  }

  get(name: QueueName): GatewayQueue {
    const found = this.byName.get(name);
    if (!found) throw new Error(`Queue "${name}" is used but not defined in QUEUES`);
    return found;
  }
}
