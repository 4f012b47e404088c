import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import type { DeliveryDeps } from '../usecases/webhooks/deliver.js';
import { createHttpSender } from './http-sender.js';
import { sqsDeliveryQueue } from './queue.js';
import { kmsSecretBox } from './secret-box.js';

/** The production wiring of the delivery use cases (worker and API): system clock, SQS, HTTP, KMS. */
let deps: DeliveryDeps | undefined;

export function deliveryDeps(): DeliveryDeps {
  deps ??= {
    clock: systemClock,
    queue: sqsDeliveryQueue,
    send: createHttpSender({ policy: { allowLoopback: config().ALLOW_LOOPBACK_CALLBACKS } }),
    secrets: kmsSecretBox,
  };
  return deps;
}

/** Forget the wiring (tests and the local stack change the configuration). */
export function resetDeliveryDeps(): void {
  deps = undefined;
}
