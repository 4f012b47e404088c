import { deliveryRuntime } from '../../shared/runtime/webhooks.js';
import { RetryLater, sqsWorker } from '../../shared/runtime/worker.js';
import { handleWebhookMessage, retryLane } from '../../shared/usecases/webhooks/deliver.js';

/**
 * The webhook-retries worker, the retry lane: attempts the first lane handed over (a receiver that did not answer
 * in time, or one marked slow) and every later attempt of the retry schedule, each waiting the full timeout
 * (shared/usecases/webhooks/deliver.ts). Its own queue, DLQ and concurrency: slow receivers wait here, not in the
 * first lane; a tenant holds a few of its places at most (RETRY_LANE_TENANT_LIMIT). Messages run concurrently; what must come back later is reported as a partial batch failure.
 */
const deps = deliveryRuntime();
/** The process's retry-lane places per tenant: one gate for every batch this process runs. */
const lane = retryLane();

export const handler = sqsWorker(
  'webhook-retries',
  async (record) => {
    if ((await handleWebhookMessage(record.body, deps, lane)) !== 'done') throw new RetryLater('a delivery attempt is due later');
  },
  { parallel: true },
);
