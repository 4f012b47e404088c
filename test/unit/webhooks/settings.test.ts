import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { getSettings, getWebhookProfile } from '../../../shared/usecases/webhooks/get-settings.js';
import { updateSettings } from '../../../shared/usecases/webhooks/update-settings.js';
import { fakeSecretBox, fakeWebhooks } from '../../support/fakes/webhooks.js';

/** Variant-A settings against the in-memory ports (no DynamoDB, no KMS, no DNS). */
const actor = { tenantId: 't-1', credential: 'token:c-1' };
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('create settings (POST /user/webhooks/)', () => {
  it('creates them with a secret shown whole once, sealed at rest, and records security.settings_changed', async () => {
    const f = fakeWebhooks();
    const first = await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    expect(first.callback_url).toBe('https://hooks.example.com/a');
    expect(first.secret).toMatch(SECRET);
    const stored = f.settings.items.get('t-1');
    expect(stored?.secretCipher).not.toContain(first.secret);
    expect(await fakeSecretBox.decrypt(stored?.secretCipher ?? '', 't-1')).toBe(first.secret);
    expect(f.events.events).toEqual([
      {
        tenantId: 't-1',
        type: 'security.settings_changed',
        payload: { setting: 'webhooks', credential: 'token:c-1', action: 'created', fields: ['webhook_url', 'webhook_secret'] },
        at: f.clock.now(),
      },
    ]);

    f.clock.advance(1000);
    const again = await createSettings(actor, { callback_url: 'https://hooks.example.com/b' }, f.clock.now(), f.deps);
    expect(again).toEqual({
      callback_url: 'https://hooks.example.com/b',
      secret: `${first.secret.slice(0, 12)}********`,
      message: expect.stringContaining('unchanged'),
    });
    expect(await getSettings('t-1', f.deps)).toEqual({
      webhook_url: 'https://hooks.example.com/b',
      webhook_secret: `${first.secret.slice(0, 12)}********`,
      enabled_events: [
        'payment_status_update',
        'deposit_received',
        'withdrawal_status_update',
        'deposit_merged',
        'wallet_transfer_status_update',
        'custody_deposit_update',
        'custody_withdrawal_update',
        'refund_status_update',
        'subscription_status_update',
      ],
    });
    expect(await getWebhookProfile('t-1', f.deps)).toEqual({ url: 'https://hooks.example.com/b', secret: first.secret.slice(0, 12), subscriptions: 0 });
    expect(f.events.events.map((e) => e.payload.action)).toEqual(['created', 'updated']);
  });

  it('refuses a missing, private or plain-HTTP URL with invalid_url', async () => {
    const f = fakeWebhooks();
    for (const callback_url of [undefined, '', 'https://10.0.0.1/x', 'http://hooks.example.com/x']) {
      await expect(createSettings(actor, { callback_url }, f.clock.now(), f.deps)).rejects.toMatchObject({ code: 'invalid_url' });
    }
    expect(f.settings.items.size).toBe(0);
  });

  it('reads the settings again when they changed meanwhile, and gives up with invalid_state', async () => {
    const f = fakeWebhooks();
    const refuseAll = {
      ...f.deps,
      webhookSettings: { get: f.settings.get.bind(f.settings), save: async () => false, markSlow: f.settings.markSlow.bind(f.settings) },
    };
    await expect(createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), refuseAll)).rejects.toMatchObject({
      code: 'invalid_state',
    });
  });

  it('nothing configured: no URL, no secret, every delivery event', async () => {
    const f = fakeWebhooks();
    expect(await getSettings('t-1', f.deps)).toEqual({ webhook_url: null, webhook_secret: null, enabled_events: expect.arrayContaining(['deposit_merged']) });
    expect(await getWebhookProfile('t-1', f.deps)).toEqual({ url: null, secret: null, subscriptions: 0 });
  });
});

describe('update settings (PATCH /user/webhooks/)', () => {
  it('needs a URL first', async () => {
    const f = fakeWebhooks();
    await expect(updateSettings(actor, { enabled_events: ['deposit_received'] }, f.clock.now(), f.deps)).rejects.toMatchObject({ code: 'webhook_not_found' });
  });

  it('creates the settings from webhook_url alone, with a secret shown once', async () => {
    const f = fakeWebhooks();
    const view = await updateSettings(actor, { webhook_url: 'https://hooks.example.com/p' }, f.clock.now(), f.deps);
    expect(view.webhook_url).toBe('https://hooks.example.com/p');
    expect(view.webhook_secret).toMatch(SECRET);
    expect(f.events.events[0]?.payload).toMatchObject({ action: 'created', fields: ['webhook_url'] });
  });

  it('validates enabled_events, rotates or sets the secret, and keeps what is not sent', async () => {
    const f = fakeWebhooks();
    const { secret } = await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    f.clock.advance(1000);
    await expect(updateSettings(actor, { enabled_events: ['payment.completed'] }, f.clock.now(), f.deps)).rejects.toMatchObject({
      code: 'invalid_event_types',
    });
    await expect(updateSettings(actor, { enabled_events: 'deposit_received' }, f.clock.now(), f.deps)).rejects.toMatchObject({ code: 'invalid_event_types' });
    await expect(updateSettings(actor, { webhook_secret: 'whsec_short' }, f.clock.now(), f.deps)).rejects.toMatchObject({ code: 'invalid_request' });

    const rotated = await updateSettings(actor, { enabled_events: ['deposit_received', 'deposit_received'], webhook_secret: 'rotate' }, f.clock.now(), f.deps);
    expect(rotated.enabled_events).toEqual(['deposit_received']);
    expect(rotated.webhook_secret).toMatch(SECRET);
    expect(rotated.webhook_secret).not.toBe(secret);
    expect(rotated.webhook_url).toBe('https://hooks.example.com/a');

    f.clock.advance(1000);
    const chosen = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const set = await updateSettings(actor, { webhook_secret: chosen }, f.clock.now(), f.deps);
    expect(set).toEqual({ webhook_url: 'https://hooks.example.com/a', webhook_secret: chosen, enabled_events: ['deposit_received'] });
    expect(await getSettings('t-1', f.deps)).toMatchObject({ webhook_secret: `${chosen.slice(0, 12)}********` });
    expect(f.events.events.map((e) => e.payload.fields)).toEqual([['webhook_url', 'webhook_secret'], ['enabled_events', 'webhook_secret'], ['webhook_secret']]);
  });

  it('answers invalid_state when the settings changed meanwhile', async () => {
    const f = fakeWebhooks();
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    const stale = {
      ...f.deps,
      webhookSettings: { get: f.settings.get.bind(f.settings), save: async () => false, markSlow: f.settings.markSlow.bind(f.settings) },
    };
    await expect(updateSettings(actor, { enabled_events: ['deposit_received'] }, f.clock.now(), stale)).rejects.toMatchObject({
      code: 'invalid_state',
      status: 409,
    });
  });
});
