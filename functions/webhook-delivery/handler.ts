import { deliveryRuntime } from '../../shared/runtime/webhooks.js';
import { RetryLater, sqsWorker } from '../../shared/runtime/worker.js';
import { handleWebhookMessage } from '../../shared/usecases/webhooks/deliver.js';
import type { DeliveryLane } from '../../shared/usecases/webhooks/deliver.js';
import { TenantGate } from '../../shared/usecases/webhooks/first-lane.js';

/**
 * The webhook-delivery worker, the first lane: each message is an outbox event from the event router (planned into
 * deliveries, whose first attempts it sends at once, waiting for a receiver only briefly) or one delivery attempt
 * (a redelivery, or a first attempt a replay handed back; shared/usecases/webhooks/deliver.ts). An attempt that
 * gets no answer in time goes to the retry lane (functions/webhook-retries). Messages run concurrently; what must
 * come back later is reported as a partial batch failure.
 */
const deps = deliveryRuntime();
/** The process's places per tenant: one gate for every batch this process runs. */
const lane: DeliveryLane = { kind: 'first', gate: new TenantGate() };

export const handler = sqsWorker(
  'webhook-delivery',
  async (record) => {
    if ((await handleWebhookMessage(record.body, deps, lane)) !== 'done') throw new RetryLater('a delivery attempt is due later');
  },
  { parallel: true },
);
