import type { WebhookPorts } from './ports.js';
import { subscriptionView } from './views.js';
import type { SubscriptionListView } from './views.js';

/** GET /user/webhooks: the tenant's variant-B subscriptions, secrets masked. */
export async function listSubscriptions(tenantId: string, deps: Pick<WebhookPorts, 'webhookSubscriptions'>): Promise<SubscriptionListView> {
  const subs = await deps.webhookSubscriptions.list(tenantId);
  return { webhooks: subs.map((s) => subscriptionView(s)), count: subs.length };
}
