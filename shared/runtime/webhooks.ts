import { config } from '../config/config.js';
import type { Config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { dynamoWebhookRepositories } from '../store/webhooks/index.js';
import type { WebhookPorts } from '../usecases/webhooks/ports.js';
import { createHttpSender } from '../webhooks/http-sender.js';
import { sqsDeliveryQueue } from '../webhooks/queue.js';
import { createKmsSecretBox } from '../webhooks/secret-box.js';

/**
 * The production wiring of the webhook use cases (the user API's webhook routes and the delivery worker):
 * DynamoDB repositories, system clock, SQS, HTTP sender under the callback policy, KMS secret box. Each
 * Lambda calls it once at module scope.
 */
export function webhooksRuntime(cfg: Config = config()): WebhookPorts {
  const callbacks = { allowLoopback: cfg.ALLOW_LOOPBACK_CALLBACKS };
  return {
    ...dynamoWebhookRepositories,
    clock: systemClock,
    webhookSecrets: createKmsSecretBox({ region: cfg.AWS_REGION, keyId: cfg.SECRETS_KEY_ID }),
    webhookSender: createHttpSender({ policy: callbacks }),
    deliveryQueue: sqsDeliveryQueue,
    callbacks,
  };
}
