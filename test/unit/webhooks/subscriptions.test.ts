import { MAX_SUBSCRIPTIONS } from '../../../shared/domain/webhooks.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import { deleteSubscription } from '../../../shared/usecases/webhooks/delete-subscription.js';
import { listSubscriptions } from '../../../shared/usecases/webhooks/list-subscriptions.js';
import { fakeWebhooks } from '../../support/fakes/webhooks.js';

/** Variant-B subscriptions against the in-memory ports. */
const actor = { tenantId: 't-1', credential: 'api_key:k-1' };

describe('create subscription (POST /user/webhooks)', () => {
  it('creates an active subscription, secret shown once, every family by default', async () => {
    const f = fakeWebhooks();
    const created = await createSubscription(actor, { url: 'https://hooks.example.com/b', description: 'orders' }, f.clock.now(), f.deps);
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/b',
      event_types: ['payment.all', 'withdrawal.all', 'refund.all', 'wallet.all', 'security.all', 'subscription.all'],
      status: 'active',
      created_at: f.clock.now().toISOString(),
      last_triggered_at: null,
      failure_count: 0,
      description: 'orders',
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(f.events.events).toEqual([
      {
        tenantId: 't-1',
        type: 'security.settings_changed',
        payload: { setting: 'webhooks', credential: 'api_key:k-1', action: 'webhook_created', webhook_id: created.id },
        at: f.clock.now(),
      },
    ]);
    const list = await listSubscriptions('t-1', f.deps);
    expect(list.count).toBe(1);
    expect(list.webhooks[0]?.secret).toBe(`${created.secret.slice(0, 12)}********`);
  });

  it('refuses a second subscription to the same URL with url_already_existsm', async () => {
    const f = fakeWebhooks();
    await createSubscription(actor, { url: 'https://hooks.example.com/b' }, f.clock.now(), f.deps);
    await expect(createSubscription(actor, { url: 'https://hooks.example.com/b' }, f.clock.now(), f.deps)).rejects.toMatchObject({
      code: 'url_already_existsm',
      details: { url: ['A webhook with this URL already exists.'] },
    });
    // Another tenant may use the same URL.
    await expect(createSubscription({ ...actor, tenantId: 't-2' }, { url: 'https://hooks.example.com/b' }, f.clock.now(), f.deps)).resolves.toMatchObject({
      status: 'active',
    });
  });

  it(`allows at most ${MAX_SUBSCRIPTIONS} per tenant, and one more after a deletion`, async () => {
    const f = fakeWebhooks();
    const ids: string[] = [];
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) {
      f.clock.advance(1000);
      ids.push((await createSubscription(actor, { url: `https://hooks.example.com/n${i}` }, f.clock.now(), f.deps)).id);
    }
    await expect(createSubscription(actor, { url: 'https://hooks.example.com/n10' }, f.clock.now(), f.deps)).rejects.toMatchObject({
      code: 'invalid_request',
      details: { limit: MAX_SUBSCRIPTIONS },
    });
    expect((await listSubscriptions('t-1', f.deps)).webhooks.map((w) => w.id)).toEqual(ids);
    await deleteSubscription(actor, { webhook_id: ids[0] }, f.clock.now(), f.deps);
    await expect(createSubscription(actor, { url: 'https://hooks.example.com/n10' }, f.clock.now(), f.deps)).resolves.toMatchObject({ status: 'active' });
  });

  it('validates event types and the URL', async () => {
    const f = fakeWebhooks();
    for (const event_types of [[], ['payment.paid'], 'payment.all', [1]]) {
      await expect(createSubscription(actor, { url: 'https://hooks.example.com/b', event_types }, f.clock.now(), f.deps)).rejects.toMatchObject({
        code: 'invalid_event_types',
      });
    }
    await expect(createSubscription(actor, { url: 'http://hooks.example.com/b' }, f.clock.now(), f.deps)).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(createSubscription(actor, { url: 'https://169.254.169.254/latest' }, f.clock.now(), f.deps)).rejects.toMatchObject({ code: 'invalid_url' });
    const ok = await createSubscription(
      actor,
      { url: 'https://hooks.example.com/b', event_types: ['payment.completed', 'payment.completed', 'security.all'] },
      f.clock.now(),
      f.deps,
    );
    expect(ok.event_types).toEqual(['payment.completed', 'security.all']);
    expect(f.events.events).toHaveLength(1);
  });
});

describe('delete subscription (DELETE /user/webhooks)', () => {
  it('deletes it (the URL may be registered again) and records the change', async () => {
    const f = fakeWebhooks();
    const created = await createSubscription(actor, { url: 'https://hooks.example.com/b' }, f.clock.now(), f.deps);
    expect(await deleteSubscription(actor, { webhook_id: created.id.toUpperCase() }, f.clock.now(), f.deps)).toEqual({ deleted: true, webhook_id: created.id });
    expect(f.events.events.map((e) => e.payload.action)).toEqual(['webhook_created', 'webhook_deleted']);
    expect((await listSubscriptions('t-1', f.deps)).count).toBe(0);
    await expect(createSubscription(actor, { url: 'https://hooks.example.com/b' }, f.clock.now(), f.deps)).resolves.toMatchObject({ status: 'active' });
  });

  it('answers invalid_webhook_id for a malformed id and webhook_not_found for an unknown or foreign one', async () => {
    const f = fakeWebhooks();
    const created = await createSubscription(actor, { url: 'https://hooks.example.com/b' }, f.clock.now(), f.deps);
    await expect(deleteSubscription(actor, { webhook_id: 'nope' }, f.clock.now(), f.deps)).rejects.toMatchObject({ code: 'invalid_webhook_id' });
    await expect(deleteSubscription(actor, {}, f.clock.now(), f.deps)).rejects.toMatchObject({ code: 'invalid_webhook_id' });
    await expect(deleteSubscription(actor, { webhook_id: '00000000-0000-4000-8000-000000000000' }, f.clock.now(), f.deps)).rejects.toMatchObject({
      code: 'webhook_not_found',
    });
    await expect(deleteSubscription({ ...actor, tenantId: 't-2' }, { webhook_id: created.id }, f.clock.now(), f.deps)).rejects.toMatchObject({
      code: 'webhook_not_found',
    });
    const gone = {
      ...f.deps,
      webhookSubscriptions: { ...f.deps.webhookSubscriptions, get: f.subscriptions.get.bind(f.subscriptions), delete: async () => false },
    };
    await expect(deleteSubscription(actor, { webhook_id: created.id }, f.clock.now(), gone)).rejects.toMatchObject({ code: 'webhook_not_found' });
  });
});
