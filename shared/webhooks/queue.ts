import { queueUrl, sendBatch } from '../queue/sqs.js';
import type { DeliveryQueue } from '../usecases/webhooks/ports.js';

/** The `webhook-delivery` queue over SQS. A message SQS did not accept is an error, so the caller is retried. */
export const sqsDeliveryQueue: DeliveryQueue = {
  async send(messages) {
    const failed = await sendBatch(
      queueUrl('webhook-delivery'),
      messages.map((m, i) => ({ id: String(i), body: m.body, delaySeconds: m.delaySeconds })),
    );
    if (failed.length > 0) throw new Error(`webhook-delivery: ${failed.length} message(s) not accepted by SQS`);
  },
};
