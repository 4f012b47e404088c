import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isWebhookSecret } from '../../../shared/domain/webhooks.js';
import { newWebhookSecret, signatureHeaders } from '../../../shared/usecases/webhooks/signing.js';

/** Our signatures, checked by code that is not ours: Node's crypto written out here, and the standardwebhooks package. */
describe('webhook signatures', () => {
  const secret = newWebhookSecret();
  const body = '{"event":"payment_status_update","data":{"transaction_id":"t-1","amount":"25.10"},"timestamp":"2026-01-01T00:00:00.000Z"}';
  const id = '2b5c6a34-3a53-4a5c-9f2c-0d3d8c7c1f10';

  it('makes secrets of the form whsec_ + base64 of 32 random bytes', () => {
    expect(isWebhookSecret(secret)).toBe(true);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('X-Signature is the hex HMAC-SHA256 of the raw body keyed with the whole secret string', () => {
    const headers = signatureHeaders(secret, id, new Date(), body);
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(headers['X-Signature']).toBe(expected);
  });

  it('the Standard Webhooks headers verify with the standardwebhooks package', () => {
    const headers = signatureHeaders(secret, id, new Date(), body);
    const verified = new Webhook(secret).verify(body, {
      'webhook-id': headers['webhook-id'] ?? '',
      'webhook-timestamp': headers['webhook-timestamp'] ?? '',
      'webhook-signature': headers['webhook-signature'] ?? '',
    });
    expect(verified).toEqual(JSON.parse(body));
    expect(headers['webhook-id']).toBe(id);
  });

  it('a changed body, another secret or a stale timestamp is rejected', () => {
    const headers = signatureHeaders(secret, id, new Date(), body);
    const h = { 'webhook-id': id, 'webhook-timestamp': headers['webhook-timestamp'] ?? '', 'webhook-signature': headers['webhook-signature'] ?? '' };
    expect(() => new Webhook(secret).verify(body.replace('25.10', '25.11'), h)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, h)).toThrow();
    const old = signatureHeaders(secret, id, new Date(Date.now() - 3600_000), body);
    expect(() =>
      new Webhook(secret).verify(body, {
        'webhook-id': id,
        'webhook-timestamp': old['webhook-timestamp'] ?? '',
        'webhook-signature': old['webhook-signature'] ?? '',
      }),
    ).toThrow();
  });

  it('without a secret only the id and timestamp are sent', () => {
    const headers = signatureHeaders(null, id, new Date(0), body);
    expect(headers).toEqual({ 'webhook-id': id, 'webhook-timestamp': '0' });
  });
});
