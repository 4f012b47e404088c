import { NotFoundError } from '../../domain/errors.js';
import { deliveryMessageBody } from '../../domain/webhooks.js';
import type { WebhookPorts } from './ports.js';
import type { RedeliveryView } from './views.js';

/**
 * Sends a delivery again as a new delivery (`<id>.r<ms>`) with the SAME body and webhook-id, full retry schedule.
 * Accepted (202) once the delivery is stored: until its first attempt is made it waits in the reconciler's work
 * queue, which sends its message again if this one is lost (shared/usecases/monitoring/reconcile.ts).
 */
export async function redeliver(
  tenantId: string,
  deliveryId: string,
  deps: Pick<WebhookPorts, 'clock' | 'webhookDeliveries' | 'deliveryQueue'>,
): Promise<RedeliveryView> {
  const original = await deps.webhookDeliveries.get(tenantId, deliveryId);
  if (!original) throw new NotFoundError('The delivery was not found.', { delivery_id: deliveryId });
  const now = deps.clock.now();
  const id = `${original.deliveryId.replace(/\.r\d+$/, '')}.r${now.getTime()}`;
  await deps.webhookDeliveries.create(
    {
      ...original,
      deliveryId: id,
      status: 'pending',
      attempts: 0,
      createdAt: now.toISOString(),
      nextDueAt: now.toISOString(),
      leaseToken: null,
      leaseUntil: null,
    },
    now,
    { awaitsFirstAttempt: true },
  );
  await deps.deliveryQueue.send([
    { body: deliveryMessageBody({ tenant_id: tenantId, delivery_id: id, attempt: 1, due_at: now.toISOString() }), delaySeconds: 0 },
  ]);
  return { delivery_id: id, webhook_id: original.webhookId, redelivery_of: original.deliveryId };
}
