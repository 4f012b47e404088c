import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { ConflictError } from '../../domain/errors.js';
import type { WebhookSettings } from '../../domain/webhooks.js';
import { maskedSecret } from '../../domain/webhooks.js';
import { checkedUrl, sealedSecret, settingsChanged } from './common.js';
import type { Actor, WebhookPorts } from './ports.js';
import type { CallbackUrlView } from './views.js';

export const CreateSettingsInput = lazySchema(() => z.object({ callback_url: z.unknown().optional() }));
export type CreateSettingsInput = z.infer<ReturnType<typeof CreateSettingsInput>>;

/** POST /user/webhooks/: creates the variant-A settings (secret returned whole, once) or changes the URL. */
export async function createSettings(
  actor: Actor,
  input: CreateSettingsInput,
  now: Date,
  deps: Pick<WebhookPorts, 'webhookSettings' | 'webhookSecrets' | 'callbacks'>,
): Promise<CallbackUrlView> {
  const url = await checkedUrl(input.callback_url, 'callback_url', deps.callbacks);
  // Changed or created meanwhile by another request: read again and apply the change to what is there.
  for (let round = 0; round < 3; round++) {
    const existing = await deps.webhookSettings.get(actor.tenantId);
    if (existing) {
      const next = { ...existing, url, updatedAt: now.toISOString() };
      if (await deps.webhookSettings.save(next, existing.updatedAt, settingsChanged(actor, now, { action: 'updated', fields: ['webhook_url'] }))) {
        return { callback_url: url, secret: maskedSecret(existing.secretHint), message: 'Webhook URL updated; the secret is unchanged.' };
      }
      continue;
    }
    const { secret, secretCipher, secretHint } = await sealedSecret(actor.tenantId, deps.webhookSecrets);
    const settings: WebhookSettings = {
      tenantId: actor.tenantId,
      url,
      secretCipher,
      secretHint,
      enabledEvents: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    if (await deps.webhookSettings.save(settings, null, settingsChanged(actor, now, { action: 'created', fields: ['webhook_url', 'webhook_secret'] }))) {
      return { callback_url: url, secret, message: 'Webhook settings created. Store the secret now: it is not shown again.' };
    }
  }
  throw new ConflictError('The webhook settings changed meanwhile; try again.');
}
