import type { WebhookPorts } from './ports.js';
import { settingsView } from './views.js';
import type { SettingsView } from './views.js';

/** GET /user/webhooks/: the variant-A settings, secret masked. */
export async function getSettings(tenantId: string, deps: Pick<WebhookPorts, 'webhookSettings'>): Promise<SettingsView> {
  return settingsView(await deps.webhookSettings.get(tenantId));
}

/** The variant-A URL and the secret's visible part, for the tenant record (`/user/me/`). */
export async function getWebhookProfile(tenantId: string, deps: Pick<WebhookPorts, 'webhookSettings'>): Promise<{ url: string | null; secret: string | null }> {
  const s = await deps.webhookSettings.get(tenantId);
  return { url: s?.url ?? null, secret: s?.secretHint ?? null };
}
