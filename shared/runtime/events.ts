import { logger } from '../observability/logger.js';
import { sqsQueueSender } from '../queue/sqs.js';
import type { EventsPorts } from '../usecases/events/ports.js';

/** The event router's ports: SQS (queue URLs from the environment) and the process logger. */
export function eventsRuntime(): EventsPorts {
  return { queue: sqsQueueSender, log: logger };
}
