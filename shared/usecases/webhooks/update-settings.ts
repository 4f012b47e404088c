import { z } from 'zod';
import { ConflictError, GatewayError, ValidationError } from '../../domain/errors.js';
import { DELIVERY_EVENTS, isDeliveryEvent, isWebhookSecret } from '../../domain/webhooks.js';
import type { WebhookSettings } from '../../domain/webhooks.js';
import { checkedUrl, eventTypeList, sealedSecret, settingsChanged } from './common.js';
import type { SealedSecret } from './common.js';
import type { Actor, WebhookPorts } from './ports.js';
import { settingsView } from './views.js';
import type { SettingsView } from './views.js';

export const PatchSettingsInput = z.object({
  webhook_url: z.unknown().optional(),
  webhook_secret: z.string().optional().describe('A `whsec_` secret, or `rotate` for a new random one (shown once)'),
  enabled_events: z.unknown().optional(),
});
export type PatchSettingsInput = z.infer<typeof PatchSettingsInput>;

const enabledEventsOf = (raw: unknown): string[] =>
  eventTypeList(raw, 'enabled_events', { nonEmpty: false, isKnown: isDeliveryEvent, allowed: DELIVERY_EVENTS });

/** PATCH /user/webhooks/: webhook_url, webhook_secret (`rotate` or a `whsec_` secret), enabled_events. */
export async function updateSettings(
  actor: Actor,
  input: PatchSettingsInput,
  now: Date,
  deps: Pick<WebhookPorts, 'webhookSettings' | 'webhookSecrets' | 'callbacks'>,
): Promise<SettingsView> {
  const existing = await deps.webhookSettings.get(actor.tenantId);
  const url = input.webhook_url === undefined ? existing?.url : await checkedUrl(input.webhook_url, 'webhook_url', deps.callbacks);
  if (!url) throw new GatewayError('webhook_not_found', 'No webhook settings yet: send webhook_url (or POST /user/webhooks/) first.');
  const enabledEvents = input.enabled_events === undefined ? (existing?.enabledEvents ?? null) : enabledEventsOf(input.enabled_events);
  let secret: SealedSecret | undefined;
  if (input.webhook_secret !== undefined) {
    if (input.webhook_secret !== 'rotate' && !isWebhookSecret(input.webhook_secret)) {
      throw ValidationError.field('webhook_secret', 'Send "rotate" for a new secret, or a secret of the form whsec_ + base64 of 32 bytes.');
    }
    secret = await sealedSecret(actor.tenantId, deps.webhookSecrets, input.webhook_secret === 'rotate' ? undefined : input.webhook_secret);
  } else if (!existing) secret = await sealedSecret(actor.tenantId, deps.webhookSecrets);
  const base = existing ?? { tenantId: actor.tenantId, createdAt: now.toISOString() };
  const next: WebhookSettings = {
    ...base,
    url,
    enabledEvents,
    secretCipher: secret?.secretCipher ?? existing?.secretCipher ?? '',
    secretHint: secret?.secretHint ?? existing?.secretHint ?? '',
    updatedAt: now.toISOString(),
  };
  const fields = Object.entries(input)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  const saved = await deps.webhookSettings.save(
    next,
    existing?.updatedAt ?? null,
    settingsChanged(actor, now, { action: existing ? 'updated' : 'created', fields }),
  );
  if (!saved) throw new ConflictError('The webhook settings changed meanwhile; try again.');
  return settingsView(next, secret?.secret);
}
