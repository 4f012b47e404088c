import { RetryLater, sqsWorker } from '../../shared/runtime/worker.js';
import { handleWebhookMessage } from '../../shared/usecases/webhooks/deliver.js';
import { deliveryDeps } from '../../shared/webhooks/runtime.js';

/**
 * The webhook-delivery worker: each message is an outbox event from the event router (planned into deliveries)
 * or one delivery attempt (shared/usecases/webhooks/deliver.ts). Messages run concurrently; what must come back
 * later is reported as a partial batch failure.
 */
export const handler = sqsWorker(
  'webhook-delivery',
  async (record) => {
    if ((await handleWebhookMessage(record.body, deliveryDeps())) !== 'done') throw new RetryLater('a delivery attempt is due later');
  },
  { parallel: true },
);
