import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook signatures (DESIGN section 7):
 * - `X-Signature`: hex HMAC-SHA256 of the raw body, keyed with the UTF-8 bytes of the whole secret string;
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (epoch seconds), `webhook-signature` =
 *   `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the base64-decoded part after `whsec_`.
 */

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export function xSignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');
}

/** The Standard Webhooks key: the decoded part after `whsec_` (a secret without the prefix is used as UTF-8). */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** Every signature header of one attempt; without a secret only the id and timestamp are sent. */
export function signatureHeaders(secret: string | null, id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': String(timestamp) };
  if (secret) {
    headers['X-Signature'] = xSignature(secret, body);
    headers['webhook-signature'] = standardSignature(secret, id, timestamp, body);
  }
  return headers;
}
