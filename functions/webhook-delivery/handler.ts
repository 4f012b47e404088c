import { deliveryRuntime } from '../../shared/runtime/webhooks.js';
import { RetryLater, sqsWorker } from '../../shared/runtime/worker.js';
import { handleWebhookMessage } from '../../shared/usecases/webhooks/deliver.js';

/**
 * The webhook-delivery worker: each message is an outbox event from the event router (planned into deliveries,
 * whose first attempts it sends at once) or one delivery attempt (a retry; shared/usecases/webhooks/deliver.ts).
 * Messages run concurrently; what must come back later is reported as a partial batch failure.
 */
const deps = deliveryRuntime();

export const handler = sqsWorker(
  'webhook-delivery',
  async (record) => {
    if ((await handleWebhookMessage(record.body, deps)) !== 'done') throw new RetryLater('a delivery attempt is due later');
  },
  { parallel: true },
);
