import type { QueueMessage, QueueName } from '../../domain/queues.js';
import type { Log } from '../../observability/logger.js';

/** Sends messages to a named queue; resolves to the ids of the messages the queue did not accept. */
export interface QueueSender {
  sendBatch(queue: QueueName, messages: readonly QueueMessage[]): Promise<string[]>;
}

export interface EventsPorts {
  readonly queue: QueueSender;
  readonly log: Log;
}
