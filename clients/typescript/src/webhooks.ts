import type { webhooks } from './schema.js';

/**
 * Webhook verification, exactly as the gateway signs (interface section 6.3, DESIGN section 7):
 * - `X-Signature`: hex HMAC-SHA256 of the raw body, keyed with the UTF-8 bytes of the whole secret. It carries no
 *   timestamp, so a replay is caught only by keying idempotency on the object's id and status (section 6.3.3).
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (epoch seconds) and `webhook-signature` (`v1,<base64>`,
 *   several separated by spaces) over `id.timestamp.body`, keyed with the base64-decoded part after `whsec_` (a
 *   secret without the prefix is used as UTF-8). Preferred whenever `webhook-signature` is present.
 * Web Crypto only, so it runs on Node, Lambda, browsers and edge runtimes.
 */

/** Every event name of the OpenAPI document's `webhooks` section. */
export type WebhookEventName = keyof webhooks;

/** The `data` of an event, as the OpenAPI document describes it. */
export type WebhookEventData<N extends WebhookEventName> = NonNullable<webhooks[N]['post']['requestBody']>['content']['application/json'];

/** Envelope A (section 6.1), for the delivery events (`payment_status_update`, ...). */
export interface DeliveryEnvelope<N extends WebhookEventName> {
  readonly event: N;
  readonly data: WebhookEventData<N>;
  readonly timestamp: string;
}

/** Envelope B (section 6.2), for the subscription events (`payment.completed`, ...): `id` is also the `webhook-id`. */
export interface SubscriptionEnvelope<N extends WebhookEventName> {
  readonly id: string;
  readonly event: N;
  readonly created_at: string;
  readonly data: WebhookEventData<N>;
}

/**
 * A verified event, a union discriminated by `event`: narrowing on the name types `data`. Dotted names come in
 * envelope B (a test delivery from POST /user/webhooks/test/ is always in envelope A, whatever its name).
 */
export type WebhookEvent = {
  [N in WebhookEventName]: N extends `${string}.${string}` ? SubscriptionEnvelope<N> : DeliveryEnvelope<N>;
}[WebhookEventName];

export type WebhookVerificationErrorCode = 'missing_header' | 'timestamp_too_old' | 'timestamp_in_future' | 'no_matching_signature' | 'body_was_parsed';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A Fetch `Headers`, a plain object in any letter case, or Node's `IncomingHttpHeaders`. */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from the current time, either way (default 300 seconds). */
  readonly toleranceSeconds?: number;
}

const RAW_BODY_HELP =
  'verifyWebhook needs the raw request body (a string or a Uint8Array/Buffer) exactly as it arrived: the signature covers those bytes, ' +
  'and JSON re-serialised from a parsed object does not reproduce them. ' +
  "Express: route the webhook through express.raw({ type: 'application/json' }) (req.body is a Buffer) or express.text({ type: 'application/json' }), not express.json(). " +
  "AWS Lambda behind API Gateway: pass event.body, decoded when event.isBase64Encoded is true (Buffer.from(event.body, 'base64')). " +
  'node:http: collect the request stream (const chunks = []; for await (const chunk of req) chunks.push(chunk)) and pass Buffer.concat(chunks).';

const encoder = new TextEncoder();

/**
 * Checks a delivery's signature with any of `secret` (several during a rotation) and returns its event, typed by
 * name. Throws WebhookVerificationError (`code` says why) when it cannot be trusted.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  { toleranceSeconds = 300 }: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const body = bodyBytes(rawBody);
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => s.length > 0);
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs at least one non-empty secret.');

  const standard = headerValue(headers, 'webhook-signature');
  const xSignature = headerValue(headers, 'x-signature');
  if (standard !== undefined) await verifyStandard(body, headers, standard, secrets, toleranceSeconds);
  else if (xSignature !== undefined) await verifyXSignature(body, xSignature, secrets);
  else throw new WebhookVerificationError('missing_header', 'The delivery carries neither webhook-signature nor X-Signature.');

  return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
}

function bodyBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return encoder.encode(rawBody);
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  const given = rawBody === null ? 'null' : typeof rawBody === 'object' ? 'an object' : typeof rawBody;
  throw new WebhookVerificationError('body_was_parsed', `${RAW_BODY_HELP} It was given ${given}.`);
}

async function verifyStandard(
  body: Uint8Array,
  headers: WebhookHeaders,
  signatures: string,
  secrets: readonly string[],
  toleranceSeconds: number,
): Promise<void> {
  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  if (id === undefined || timestamp === undefined) {
    throw new WebhookVerificationError('missing_header', 'webhook-signature comes with webhook-id and webhook-timestamp: one of them is missing.');
  }
  if (!/^\d+$/.test(timestamp.trim())) throw new WebhookVerificationError('missing_header', 'webhook-timestamp is not a number of seconds.');
  const seconds = Number(timestamp.trim());
  const now = Math.floor(Date.now() / 1000);
  if (now - seconds > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_too_old', `webhook-timestamp is ${now - seconds} s old, more than the tolerance of ${toleranceSeconds} s.`);
  }
  if (seconds - now > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `webhook-timestamp is ${seconds - now} s ahead, more than the tolerance of ${toleranceSeconds} s.`,
    );
  }
  const given = signatures
    .split(/\s+/)
    .filter((s) => s.startsWith('v1,'))
    .map((s) => base64Bytes(s.slice(3)))
    .filter((b): b is Uint8Array => b !== null);
  const signed = concat(encoder.encode(`${id}.${seconds}.`), body);
  for (const secret of secrets) {
    const mac = await hmac(standardKey(secret), signed);
    if (given.some((g) => equalBytes(g, mac))) return;
  }
  throw noMatch('webhook-signature');
}

async function verifyXSignature(body: Uint8Array, signatures: string, secrets: readonly string[]): Promise<void> {
  const given = signatures
    .split(/[\s,]+/)
    .map(hexBytes)
    .filter((b): b is Uint8Array => b !== null);
  for (const secret of secrets) {
    const mac = await hmac(encoder.encode(secret), body);
    if (given.some((g) => equalBytes(g, mac))) return;
  }
  throw noMatch('X-Signature');
}

const noMatch = (header: string): WebhookVerificationError =>
  new WebhookVerificationError(
    'no_matching_signature',
    `No ${header} matches the body with the secret(s) given. Check the secret, and that the body is the raw one: a body parsed and re-serialised does not match.`,
  );

/** The Standard Webhooks key: the decoded part after `whsec_`; a secret without the prefix is used as UTF-8. */
function standardKey(secret: string): Uint8Array {
  if (!secret.startsWith('whsec_')) return encoder.encode(secret);
  const key = base64Bytes(secret.slice('whsec_'.length));
  if (key === null) throw new TypeError('A whsec_ secret is whsec_ followed by base64.');
  return key;
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey('raw', asBuffer(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, asBuffer(data)));
}

/** A copy as an ArrayBuffer (Web Crypto's BufferSource, whatever the Uint8Array's backing store). */
/**
 * The bytes alone, in an ArrayBuffer of their own: `Uint8Array.prototype.slice` copies, where a Node Buffer's own
 * `slice` is a view into its shared pool (whose `.buffer` holds other bytes too).
 */
const asBuffer = (bytes: Uint8Array): ArrayBuffer => Uint8Array.prototype.slice.call(bytes).buffer as ArrayBuffer;

/** Constant time in the content: every byte is compared, whatever the first difference. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function hexBytes(text: string): Uint8Array | null {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function base64Bytes(text: string): Uint8Array | null {
  try {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** A header, whatever the letter case and the container; several values of one header are joined by a space. */
function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Readonly<Record<string, string | readonly string[] | undefined>>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(' ');
  }
  return undefined;
}
