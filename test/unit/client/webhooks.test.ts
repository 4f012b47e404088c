import { verifyWebhook, WebhookVerificationError } from '@gateway/client';
import type { WebhookEvent } from '@gateway/client';
import { newWebhookSecret, signatureHeaders } from '../../../shared/usecases/webhooks/signing.js';

/** The client's verification against the gateway's own signing code (shared/usecases/webhooks/signing.ts). */
describe('verifyWebhook', () => {
  const secret = newWebhookSecret();
  const id = '2b5c6a34-3a53-4a5c-9f2c-0d3d8c7c1f10';
  const bodyA = JSON.stringify({
    event: 'payment_status_update',
    data: { transaction_id: 't-1', status: 'completed', previous_status: 'confirming', pay_amount: '25.10', pay_currency: 'USDTPOLYGON' },
    timestamp: '2026-01-01T00:00:00.000Z',
  });
  const bodyB = JSON.stringify({
    id,
    event: 'payment.completed',
    created_at: '2026-01-01T00:00:00.000Z',
    data: { transaction_id: 't-1', status: 'completed' },
  });

  /** The headers of one attempt at `at`, only those named (`all` keeps every one the gateway sends). */
  const signed = (body: string, names: 'x' | 'standard' | 'all', s: string = secret, at = new Date()): Record<string, string> => {
    const all = signatureHeaders(s, id, at, body);
    if (names === 'all') return all;
    if (names === 'x') return { 'X-Signature': all['X-Signature'] as string };
    const { 'X-Signature': _x, ...standard } = all;
    return standard;
  };

  const failure = async (promise: Promise<unknown>): Promise<WebhookVerificationError> => {
    try {
      await promise;
    } catch (e) {
      if (e instanceof WebhookVerificationError) return e;
      throw e;
    }
    throw new Error('verifyWebhook accepted the delivery');
  };

  it('verifies X-Signature alone (the interface HMAC) and returns the event typed by its name', async () => {
    const event: WebhookEvent = await verifyWebhook(bodyA, signed(bodyA, 'x'), secret);
    expect(event.event).toBe('payment_status_update');
    if (event.event !== 'payment_status_update') throw new Error('narrowing');
    const amount: string = event.data.pay_amount; // a decimal string, typed from the OpenAPI webhooks section
    expect(amount).toBe('25.10');
  });

  it('verifies the Standard Webhooks headers and returns envelope B', async () => {
    const event = await verifyWebhook(bodyB, signed(bodyB, 'standard'), secret);
    expect(event.event).toBe('payment.completed');
    if (event.event !== 'payment.completed') throw new Error('narrowing');
    expect(event.id).toBe(id);
    expect(event.data.transaction_id).toBe('t-1');
  });

  it('verifies a delivery with every header the gateway sends', async () => {
    await expect(verifyWebhook(bodyA, signed(bodyA, 'all'), secret)).resolves.toMatchObject({ event: 'payment_status_update' });
  });

  it('takes the headers as a Fetch Headers object, in any letter case, and as Node IncomingHttpHeaders (string[] values)', async () => {
    const headers = signed(bodyB, 'standard');
    await expect(verifyWebhook(bodyB, new Headers(headers), secret)).resolves.toMatchObject({ id });
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(verifyWebhook(bodyB, upper, secret)).resolves.toMatchObject({ id });
    const node = { ...headers, 'webhook-signature': ['v1,AAAA', headers['webhook-signature'] as string], host: '127.0.0.1' };
    await expect(verifyWebhook(bodyB, node, secret)).resolves.toMatchObject({ id });
    await expect(verifyWebhook(bodyA, { 'x-signature': signed(bodyA, 'x')['X-Signature'] }, secret)).resolves.toMatchObject({ event: 'payment_status_update' });
  });

  it('accepts the raw body as a Uint8Array (a Buffer included)', async () => {
    const bytes = new TextEncoder().encode(bodyA);
    await expect(verifyWebhook(bytes, signed(bodyA, 'x'), secret)).resolves.toMatchObject({ event: 'payment_status_update' });
    await expect(verifyWebhook(Buffer.from(bodyB), signed(bodyB, 'standard'), secret)).resolves.toMatchObject({ id });
    // A small Buffer is a view into Node's shared pool: only its own bytes are signed.
    const pooled = Buffer.from(bodyA);
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength);
    await expect(verifyWebhook(pooled, signed(bodyA, 'x'), secret)).resolves.toMatchObject({ event: 'payment_status_update' });
    await expect(verifyWebhook(Buffer.concat([pooled]), signed(bodyA, 'x'), secret)).resolves.toMatchObject({ event: 'payment_status_update' });
  });

  it('verifies with any of several secrets (rotation), in both styles', async () => {
    const next = newWebhookSecret();
    await expect(verifyWebhook(bodyA, signed(bodyA, 'x', next), [secret, next])).resolves.toMatchObject({ event: 'payment_status_update' });
    await expect(verifyWebhook(bodyB, signed(bodyB, 'standard', next), [secret, next])).resolves.toMatchObject({ id });
  });

  it('verifies a merchant-chosen secret without the whsec_ prefix (its UTF-8 bytes are the key), in both styles', async () => {
    const chosen = 'a-merchant-chosen-secret-of-40-characters';
    await expect(verifyWebhook(bodyA, signed(bodyA, 'x', chosen), chosen)).resolves.toMatchObject({ event: 'payment_status_update' });
    await expect(verifyWebhook(bodyB, signed(bodyB, 'standard', chosen), chosen)).resolves.toMatchObject({ id });
  });

  it('refuses a tampered body in both styles', async () => {
    const tampered = bodyA.replace('25.10', '2510.00');
    expect((await failure(verifyWebhook(tampered, signed(bodyA, 'x'), secret))).code).toBe('no_matching_signature');
    expect((await failure(verifyWebhook(tampered, signed(bodyA, 'standard'), secret))).code).toBe('no_matching_signature');
  });

  it('refuses a body parsed and re-serialised (whitespace changed), naming the raw body in the message', async () => {
    const reserialised = JSON.stringify(JSON.parse(bodyA), null, 2);
    const error = await failure(verifyWebhook(reserialised, signed(bodyA, 'x'), secret));
    expect(error.code).toBe('no_matching_signature');
    expect(error.message).toMatch(/raw/);
  });

  it('refuses a wrong secret, and a Standard signature when the others do not match even if X-Signature would', async () => {
    const other = newWebhookSecret();
    expect((await failure(verifyWebhook(bodyA, signed(bodyA, 'x'), other))).code).toBe('no_matching_signature');
    expect((await failure(verifyWebhook(bodyB, signed(bodyB, 'standard'), [other]))).code).toBe('no_matching_signature');
    const mixed = { ...signed(bodyA, 'standard', other), 'X-Signature': signed(bodyA, 'x')['X-Signature'] as string };
    expect((await failure(verifyWebhook(bodyA, mixed, secret))).code).toBe('no_matching_signature');
  });

  it('refuses a timestamp older or further ahead than the tolerance, and keeps one within it', async () => {
    // A minute past the tolerance (300 s) either way: a slow machine's seconds between signing and checking cannot
    // bring either within it.
    const old = new Date(Date.now() - 360_000);
    const ahead = new Date(Date.now() + 360_000);
    expect((await failure(verifyWebhook(bodyB, signed(bodyB, 'standard', secret, old), secret))).code).toBe('timestamp_too_old');
    expect((await failure(verifyWebhook(bodyB, signed(bodyB, 'standard', secret, ahead), secret))).code).toBe('timestamp_in_future');
    await expect(verifyWebhook(bodyB, signed(bodyB, 'standard', secret, old), secret, { toleranceSeconds: 600 })).resolves.toMatchObject({ id });
    const recent = new Date(Date.now() - 60_000);
    await expect(verifyWebhook(bodyB, signed(bodyB, 'standard', secret, recent), secret)).resolves.toMatchObject({ id });
  });

  it('refuses a delivery without signature headers, or a Standard signature without its id or timestamp', async () => {
    expect((await failure(verifyWebhook(bodyA, {}, secret))).code).toBe('missing_header');
    expect((await failure(verifyWebhook(bodyA, new Headers({ 'content-type': 'application/json' }), secret))).code).toBe('missing_header');
    const { 'webhook-id': _id, ...noId } = signed(bodyB, 'standard');
    expect((await failure(verifyWebhook(bodyB, noId, secret))).code).toBe('missing_header');
    const { 'webhook-timestamp': _ts, ...noTimestamp } = signed(bodyB, 'standard');
    expect((await failure(verifyWebhook(bodyB, noTimestamp, secret))).code).toBe('missing_header');
  });

  it('refuses a parsed object with body_was_parsed, saying how to get the raw body', async () => {
    const parsed = JSON.parse(bodyA) as unknown as string;
    const error = await failure(verifyWebhook(parsed, signed(bodyA, 'x'), secret));
    expect(error.code).toBe('body_was_parsed');
    expect(error.name).toBe('WebhookVerificationError');
    expect(error.message).toMatch(/express\.raw/);
    expect(error.message).toMatch(/isBase64Encoded/);
    expect(error.message).toMatch(/node:http/);
    expect((await failure(verifyWebhook(undefined as unknown as string, signed(bodyA, 'x'), secret))).code).toBe('body_was_parsed');
  });
});
