import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { GatewayError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { settingsChanged } from './common.js';
import type { Actor, WebhookPorts } from './ports.js';
import type { DeletedSubscriptionView } from './views.js';

export const DeleteSubscriptionInput = lazySchema(() => z.object({ webhook_id: z.unknown().optional() }));
export type DeleteSubscriptionInput = z.infer<ReturnType<typeof DeleteSubscriptionInput>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** DELETE /user/webhooks: removes a variant-B subscription (its URL may be registered again). */
export async function deleteSubscription(
  actor: Actor,
  input: DeleteSubscriptionInput,
  now: Date,
  deps: Pick<WebhookPorts, 'webhookSubscriptions'>,
): Promise<DeletedSubscriptionView> {
  const id = input.webhook_id;
  if (typeof id !== 'string' || !UUID.test(id)) {
    const message =
      id === undefined ? WORDING.required : id === null ? WORDING.null : typeof id === 'string' ? WORDING.format('uuid') : WORDING.wrongType('string');
    throw new GatewayError('invalid_webhook_id', 'webhook_id must be a webhook id.', { webhook_id: [message] });
  }
  const notFound = () => new GatewayError('webhook_not_found', 'The webhook was not found.', { webhook_id: id });
  const sub = await deps.webhookSubscriptions.get(actor.tenantId, id.toLowerCase());
  if (!sub) throw notFound();
  if (!(await deps.webhookSubscriptions.delete(sub, settingsChanged(actor, now, { action: 'webhook_deleted', webhook_id: sub.id })))) throw notFound();
  return { deleted: true, webhook_id: sub.id };
}
