import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { handleWebhookMessage } from '../../../shared/usecases/webhooks/deliver.js';
import { getSettings } from '../../../shared/usecases/webhooks/get-settings.js';
import { updateSettings } from '../../../shared/usecases/webhooks/update-settings.js';
import { fakeSecretBox, fakeWebhooks } from '../../support/fakes/webhooks.js';

/** PATCH /user/webhooks/ with a merchant-chosen webhook_secret (spec: updatable), against the in-memory ports. */
const actor = { tenantId: 't-1', credential: 'token:c-1' };

async function withSettings() {
  const f = fakeWebhooks();
  await createSettings(actor, { callback_url: 'https://hooks.example.com/a' }, f.clock.now(), f.deps);
  return f;
}

describe('a merchant-chosen webhook secret', () => {
  it('is stored sealed, answered once, shown masked afterwards, and signs the deliveries', async () => {
    for (const chosen of ['my-own-secret-of-at-least-32-chars!', `whsec_${randomBytes(24).toString('base64')}`]) {
      const f = await withSettings();
      const view = await updateSettings(actor, { webhook_secret: chosen }, f.clock.now(), f.deps);
      expect(view.webhook_secret).toBe(chosen);
      const masked = (await getSettings('t-1', f.deps)).webhook_secret;
      expect(masked).toMatch(/\*{8}$/);
      expect(masked).not.toContain(chosen.slice(0, 16));
      const stored = f.settings.items.get('t-1');
      expect(stored?.secretCipher).not.toContain(chosen);
      expect(await fakeSecretBox.decrypt(stored?.secretCipher ?? '', 't-1')).toBe(chosen);

      const eventId = randomUUID();
      const body = JSON.stringify({
        event_id: eventId,
        tenant_id: 't-1',
        type: 'payment_status_update',
        occurred_at: f.clock.now().toISOString(),
        payload: { transaction_id: 'p-1', status: 'completed', previous_status: 'sending', pay_amount: '1', pay_currency: 'USDTERC20' },
      });
      expect(await handleWebhookMessage(body, f.deps)).toBe('done');
      for (const m of f.queue.take()) await handleWebhookMessage(m.body, f.deps);
      const request = f.sender.requests[0];
      expect(request?.headers['X-Signature']).toBe(
        createHmac('sha256', Buffer.from(chosen, 'utf8'))
          .update(request?.body ?? '')
          .digest('hex'),
      );
    }
  });

  it('must be strong: at least 32 characters, or a whsec_ secret of at least 24 bytes; the error says the rule', async () => {
    const f = await withSettings();
    for (const weak of ['short', 'x'.repeat(31), `whsec_${randomBytes(16).toString('base64')}`, 'whsec_not base64 at all, but long enough!!', ' '.repeat(40)]) {
      const error = await updateSettings(actor, { webhook_secret: weak }, f.clock.now(), f.deps).then(
        () => null,
        (e: { code?: string; details?: Record<string, string[]> }) => e,
      );
      expect([weak, error?.code]).toEqual([weak, 'invalid_request']);
      expect(error?.details?.webhook_secret?.[0]).toMatch(/32 characters.*whsec_.*24 bytes/);
    }
  });
});
