import { logger } from '../observability/logger.js';
import { sqsQueueSender } from '../queue/sqs.js';
import { routableRecords } from '../store/stream-events.js';
import type { EventsPorts } from '../usecases/events/ports.js';

/** The event router's ports: stream records read as outbox events, SQS (queue URLs from the environment), the process logger. */
export function eventsRuntime(): EventsPorts & { readonly read: typeof routableRecords } {
  return { read: routableRecords, queue: sqsQueueSender, log: logger };
}
