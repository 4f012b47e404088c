import { config } from '../config/config.js';
import type { Config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { dynamoWebhookRepositories } from '../store/webhooks/index.js';
import type { WebhookPorts } from '../usecases/webhooks/ports.js';
import { createHttpSender } from '../webhooks/http-sender.js';
import { sqsDeliveryQueue, sqsRetryQueue } from '../webhooks/queue.js';
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
    retryQueue: sqsRetryQueue,
    callbacks,
  };
}

/**
 * One read of a tenant's webhook configuration serves every event of that tenant planned at the same moment:
 * the two or more events of one change reach the delivery worker in one batch, handled side by side. A read
 * is shared while in flight and for `windowMs` after (100 ms), so a change of the settings reaches the next
 * events as before, at most that much later.
 */
export function sharedReads<A extends unknown[], T>(
  read: (...args: A) => Promise<T>,
  windowMs = 100,
  now: () => number = Date.now,
): (...args: A) => Promise<T> {
  const recent = new Map<string, { value: Promise<T>; until: number }>();
  return (...args: A) => {
    const key = JSON.stringify(args);
    const at = now();
    const hit = recent.get(key);
    if (hit && (hit.until === 0 || at <= hit.until)) return hit.value;
    const entry = { value: read(...args), until: 0 };
    recent.set(key, entry);
    for (const [k, e] of recent) if (e.until !== 0 && e.until < at) recent.delete(k);
    entry.value.then(
      () => (entry.until = now() + windowMs),
      () => recent.delete(key),
    );
    return entry.value;
  };
}

/**
 * The delivery workers' wiring (both lanes): `webhooksRuntime` with the configuration reads of planning shared
 * (`sharedReads`).
 */
export function deliveryRuntime(cfg: Config = config()): WebhookPorts {
  const ports = webhooksRuntime(cfg);
  const { webhookSettings: settings, webhookSubscriptions: subscriptions } = ports;
  return {
    ...ports,
    webhookSettings: { ...settings, get: sharedReads((tenantId: string) => settings.get(tenantId)) },
    webhookSubscriptions: { ...subscriptions, list: sharedReads((tenantId: string) => subscriptions.list(tenantId)) },
  };
}
