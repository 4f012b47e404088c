import { EVENTS } from '../../domain/events.js';
import { createHash } from 'node:crypto';
import { GatewayError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { secretHint } from '../../domain/webhooks.js';
import { checkRegisteredUrl } from '../../net/callback-url.js';
import type { Actor, CallbackSettings, SecretBox, SecurityEvent } from './ports.js';
import { newWebhookSecret } from './signing.js';

/** Pieces shared by the webhook management use cases. */

/** A URL that passes the callback policy at registration (a name need not resolve yet; delivery checks again at connect time). */
export async function checkedUrl(raw: unknown, field: string, callbacks: CallbackSettings): Promise<string> {
  if (typeof raw !== 'string' || raw.trim() === '') {
    const message = raw === undefined ? WORDING.required : raw === null ? WORDING.null : typeof raw === 'string' ? WORDING.blank : WORDING.wrongType('string');
    throw new GatewayError('invalid_url', 'A URL is required.', { [field]: [message] });
  }
  const { url } = await checkRegisteredUrl(raw.trim(), { allowLoopback: callbacks.allowLoopback }, callbacks.resolve, field);
  return url.toString();
}

/** `security.settings_changed` for a webhook change, committed with it. */
export function settingsChanged(actor: Actor, now: Date, detail: Readonly<Record<string, unknown>>): SecurityEvent {
  return { tenantId: actor.tenantId, type: EVENTS.securitySettingsChanged, payload: { setting: 'webhooks', credential: actor.credential, ...detail }, at: now };
}

export interface SealedSecret {
  /** Whole, to be shown once. */
  readonly secret: string;
  readonly secretCipher: string;
  readonly secretHint: string;
}

/** A new random secret (or the one given), sealed for the tenant. */
export async function sealedSecret(tenantId: string, secrets: SecretBox, secret: string = newWebhookSecret()): Promise<SealedSecret> {
  return { secret, secretCipher: await secrets.encrypt(secret, tenantId), secretHint: secretHint(secret) };
}

/**
 * A list of event types as sent (`enabled_events`, `event_types`): strings only, every one known, duplicates
 * dropped; anything else is `invalid_event_types` naming the field (and the allowed types when given).
 */
export function eventTypeList(
  raw: unknown,
  field: string,
  rule: { readonly nonEmpty: boolean; readonly isKnown: (type: string) => boolean; readonly allowed?: readonly string[] },
): string[] {
  const shape = rule.nonEmpty ? 'a non-empty array' : 'an array';
  if (!Array.isArray(raw) || (rule.nonEmpty && raw.length === 0) || raw.some((t) => typeof t !== 'string')) {
    throw new GatewayError('invalid_event_types', `${field} must be ${shape} of event types.`, { [field]: [`Expected ${shape} of strings.`] });
  }
  const types: string[] = raw.filter((t): t is string => typeof t === 'string');
  const unknown = types.filter((t) => !rule.isKnown(t));
  if (unknown.length > 0) {
    throw new GatewayError('invalid_event_types', `Unknown event types: ${unknown.join(', ')}.`, {
      [field]: unknown.map((t) => `Unknown event type: ${t}`),
      ...(rule.allowed ? { allowed: [...rule.allowed] } : {}),
    });
  }
  return [...new Set(types)];
}

export const urlHash = (url: string): string => createHash('sha256').update(url).digest('hex');
