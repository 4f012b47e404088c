import { randomUUID } from 'node:crypto';
import { DeliveryMessage, handleWebhookMessage, variantADeliveryId } from '../../../shared/usecases/webhooks/deliver.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { listDeliveries } from '../../../shared/usecases/webhooks/list-deliveries.js';
import { redeliver } from '../../../shared/usecases/webhooks/redeliver.js';
import { sendTestWebhook } from '../../../shared/usecases/webhooks/send-test.js';
import { fakeWebhooks, ScriptedSender } from '../../support/fakes/webhooks.js';

/** The attempt log, redelivery and the test webhook against the in-memory ports. */
const actor = { tenantId: 't-1', credential: 'test' };

describe('list deliveries (GET /user/webhooks/deliveries/)', () => {
  it('lists attempts of the last 30 days newest first, in pages', async () => {
    const f = fakeWebhooks({ sender: new ScriptedSender(500, 200) });
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    const old = await sendTestWebhook(actor, { event_type: 'payment_status_update' }, f.deps);
    f.clock.advance(31 * 86400_000);
    const recent = await sendTestWebhook(actor, { event_type: 'deposit_received' }, f.deps);
    f.clock.advance(1000);
    const latest = await sendTestWebhook(actor, { event_type: 'payment.completed' }, f.deps);
    expect([old.delivered, old.status_code, recent.delivered, latest.delivered]).toEqual([false, 500, true, true]);

    const page1 = await listDeliveries('t-1', { limit: 1 }, f.clock.now(), f.deps);
    expect(page1.results).toEqual([
      expect.objectContaining({
        delivery_id: latest.delivery_id,
        webhook_id: latest.webhook_id,
        event_type: 'payment.completed',
        attempt: 1,
        status_code: 200,
        succeeded: true,
      }),
    ]);
    expect(page1.next_cursor).not.toBeNull();
    const page2 = await listDeliveries('t-1', { limit: 1, cursor: page1.next_cursor ?? undefined }, f.clock.now(), f.deps);
    expect(page2.results.map((r) => r.delivery_id)).toEqual([recent.delivery_id]);
    expect(page2.next_cursor).toBeNull();
    expect(await listDeliveries('t-2', { limit: 50 }, f.clock.now(), f.deps)).toEqual({ results: [], next_cursor: null });
  });

  it('refuses a broken, forged or foreign cursor with 400 invalid_request naming the cursor', async () => {
    const f = fakeWebhooks({ sender: new ScriptedSender(200) });
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    for (let i = 0; i < 2; i++) {
      await sendTestWebhook(actor, { event_type: 'deposit_received' }, f.deps);
      f.clock.advance(1000);
    }
    const page1 = await listDeliveries('t-1', { limit: 1 }, f.clock.now(), f.deps);
    const cursor = page1.next_cursor ?? '';
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    for (const bad of ['x', 'WHLOG#2026', b64('nope'), b64({ ...decoded, at: 'yesterday' }), b64({ ...decoded, n: -1 }), `${cursor}!`]) {
      await expect(listDeliveries('t-1', { limit: 1, cursor: bad }, f.clock.now(), f.deps)).rejects.toMatchObject({
        code: 'invalid_request',
        status: 400,
        details: { cursor: [expect.any(String)] },
      });
    }
    // Another tenant's cursor is not one of this tenant's positions.
    await expect(listDeliveries('t-2', { limit: 1, cursor }, f.clock.now(), f.deps)).rejects.toMatchObject({
      code: 'invalid_request',
      details: { cursor: [expect.any(String)] },
    });
    expect((await listDeliveries('t-1', { limit: 1, cursor }, f.clock.now(), f.deps)).results).toHaveLength(1);
  });

  it('the test webhook needs settings and a known event type', async () => {
    const f = fakeWebhooks();
    await expect(sendTestWebhook(actor, { event_type: 'payment_status_update' }, f.deps)).rejects.toMatchObject({ code: 'webhook_not_found' });
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    await expect(sendTestWebhook(actor, { event_type: 'payment.paid' }, f.deps)).rejects.toMatchObject({ code: 'invalid_event_types' });
    const sent = await sendTestWebhook(actor, { event_type: 'payment_status_update' }, f.deps);
    expect(sent).toMatchObject({ delivered: true, url: 'https://hooks.example.com/a', status_code: 200, latency_ms: 1, error: null });
    expect(JSON.parse(f.sender.requests[0]?.body ?? '')).toMatchObject({ event: 'payment_status_update', data: { test: true, status: 'completed' } });
  });
});

describe('redeliver (POST /user/webhooks/deliveries/{id}/redeliver/)', () => {
  it('queues a new delivery with the same body and webhook-id and its own full schedule', async () => {
    const f = fakeWebhooks();
    await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
    const eventId = randomUUID();
    await handleWebhookMessage(
      JSON.stringify({ event_id: eventId, tenant_id: 't-1', type: 'deposit_received', occurred_at: f.clock.now().toISOString(), payload: { amount: '25.10' } }),
      f.deps,
    );
    for (const m of f.queue.take()) await handleWebhookMessage(m.body, f.deps);
    f.clock.advance(5000);

    const again = await redeliver('t-1', variantADeliveryId(eventId), f.deps);
    expect(again).toEqual({ delivery_id: `${eventId}.a.r${f.clock.now().getTime()}`, webhook_id: eventId, redelivery_of: `${eventId}.a` });
    const [message] = f.queue.take();
    expect(message?.delaySeconds).toBe(0);
    expect(DeliveryMessage().parse(JSON.parse(message?.body ?? '{}'))).toMatchObject({ delivery_id: again.delivery_id, attempt: 1 });
    await handleWebhookMessage(message?.body ?? '', f.deps);
    expect(f.sender.requests.map((r) => [r.headers['webhook-id'], r.body])).toEqual([
      [eventId, f.sender.requests[0]?.body],
      [eventId, f.sender.requests[0]?.body],
    ]);
    expect(await f.deliveries.get('t-1', again.delivery_id)).toMatchObject({ status: 'succeeded', attempts: 1 });

    // A redelivery of the redelivery is named after the original.
    f.clock.advance(1000);
    expect((await redeliver('t-1', again.delivery_id, f.deps)).delivery_id).toBe(`${eventId}.a.r${f.clock.now().getTime()}`);
  });

  it('answers not_found for an unknown or foreign delivery', async () => {
    const f = fakeWebhooks();
    await expect(redeliver('t-1', 'nope.a', f.deps)).rejects.toMatchObject({ code: 'not_found', status: 404 });
    expect(f.queue.sent).toHaveLength(0);
  });
});
