import { isActiveSubscription } from '../../domain/webhooks.js';
import type { WebhookProfile } from '../user/ports.js';
import type { WebhookPorts } from './ports.js';
import { settingsView } from './views.js';
import type { SettingsView } from './views.js';

/** GET /user/webhooks/: the variant-A settings, secret masked. */
export async function getSettings(tenantId: string, deps: Pick<WebhookPorts, 'webhookSettings'>): Promise<SettingsView> {
  return settingsView(await deps.webhookSettings.get(tenantId));
}

/** The variant-A URL, the secret's visible part and the active variant-B subscriptions, for the tenant record (`/user/me/`). */
export async function getWebhookProfile(tenantId: string, deps: Pick<WebhookPorts, 'webhookSettings' | 'webhookSubscriptions'>): Promise<WebhookProfile> {
  const [s, subscriptions] = await Promise.all([deps.webhookSettings.get(tenantId), deps.webhookSubscriptions.list(tenantId)]);
  return { url: s?.url ?? null, secret: s?.secretHint ?? null, subscriptions: subscriptions.filter(isActiveSubscription).length };
}
