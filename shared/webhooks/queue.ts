import { queueUrl, sendBatch } from '../queue/sqs.js';
import type { DeliveryQueue } from '../usecases/webhooks/ports.js';

/** A webhook lane's queue over SQS. A message SQS did not accept is an error, so the caller is retried. */
function sqsLane(name: 'webhook-delivery' | 'webhook-retries'): DeliveryQueue {
  return {
    async send(messages) {
      const failed = await sendBatch(
        queueUrl(name),
        messages.map((m, i) => ({ id: String(i), body: m.body, delaySeconds: m.delaySeconds })),
      );
      if (failed.length > 0) throw new Error(`${name}: ${failed.length} message(s) not accepted by SQS`);
    },
  };
}

/** The first lane: events and their first attempts. */
export const sqsDeliveryQueue: DeliveryQueue = sqsLane('webhook-delivery');
/** The retry lane: attempts handed over by the first lane, and every later attempt. */
export const sqsRetryQueue: DeliveryQueue = sqsLane('webhook-retries');
