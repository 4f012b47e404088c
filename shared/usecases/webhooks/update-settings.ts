import * as z from 'zod';
import { ConflictError, GatewayError, ValidationError } from '../../domain/errors.js';
import { CHOSEN_SECRET_RULE, DELIVERY_EVENTS, isDeliveryEvent, isStrongChosenSecret } from '../../domain/webhooks.js';
import type { WebhookSettings } from '../../domain/webhooks.js';
import { checkedUrl, eventTypeList, sealedSecret, settingsChanged } from './common.js';
import type { SealedSecret } from './common.js';
import type { Actor, WebhookPorts } from './ports.js';
import { settingsView } from './views.js';
import type { SettingsView } from './views.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

export const PatchSettingsInput = lazySchema(() =>
  z.object({
    webhook_url: z.unknown().optional(),
    webhook_secret: z
      .string()
      .optional()
      .describe(
        '`rotate` for a new random secret (shown whole once), or a secret of your own (stored encrypted, shown masked): at least 32 characters of printable ASCII without spaces, or `whsec_` + base64 of at least 24 bytes',
      ),
    enabled_events: z.unknown().optional(),
  }),
);
export type PatchSettingsInput = LazyOutput<typeof PatchSettingsInput>;

const enabledEventsOf = (raw: unknown): string[] =>
  eventTypeList(raw, 'enabled_events', { nonEmpty: false, isKnown: isDeliveryEvent, allowed: DELIVERY_EVENTS });

/** PATCH /user/webhooks/: webhook_url, webhook_secret (`rotate`, or the merchant's own secret of minimum strength), enabled_events. */
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
    const rotate = input.webhook_secret === 'rotate';
    if (!rotate && !isStrongChosenSecret(input.webhook_secret)) throw ValidationError.field('webhook_secret', CHOSEN_SECRET_RULE);
    secret = await sealedSecret(actor.tenantId, deps.webhookSecrets, rotate ? undefined : input.webhook_secret);
  } else if (!existing) {
    secret = await sealedSecret(actor.tenantId, deps.webhookSecrets);
  }
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
  // A new or chosen secret is answered whole once; afterwards it is shown masked.
  return settingsView(next, secret?.secret);
}
