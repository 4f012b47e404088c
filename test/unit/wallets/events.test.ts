import { randomUUID } from 'node:crypto';
import type { EventDraft } from '../../../shared/domain/events.js';
import { EVENT_CATALOGUE, isEventType } from '../../../shared/domain/events.js';
import { creditEntry, MAIN } from '../../../shared/domain/ledger.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import { handleWebhookMessage } from '../../../shared/usecases/webhooks/deliver.js';
import { createTransfer } from '../../../shared/usecases/wallets/create-transfer.js';
import { createWallet } from '../../../shared/usecases/wallets/create-wallet.js';
import { settleTransfer } from '../../../shared/usecases/wallets/settle-transfer.js';
import { fakeWallets } from '../../support/fakes/wallets.js';
import type { FakeWebhooks } from '../../support/fakes/webhooks.js';
import { fakeWebhooks } from '../../support/fakes/webhooks.js';

/**
 * What the wallet use cases announce reaches the merchant: `wallet.created` to a `wallet.all`
 * subscription (envelope B), a transfer's `wallet_transfer_status_update` to its callback_url (envelope A); the
 * worker's own `wallet_transfer.accepted` never leaves the gateway.
 */
const T = 't-1';

/** Delivers the tenant events as the event router would route them (the store adds `callback_url` to a transfer's). */
async function deliver(web: FakeWebhooks, events: readonly EventDraft[], callbackUrl: string | null): Promise<void> {
  for (const e of events) {
    if (!isEventType(e.type) || EVENT_CATALOGUE[e.type].audience !== 'tenant') continue;
    const payload = 'transfer_id' in e.payload ? { ...e.payload, callback_url: callbackUrl } : e.payload;
    const body = JSON.stringify({ event_id: randomUUID(), tenant_id: T, type: e.type, occurred_at: web.clock.now().toISOString(), payload });
    expect(await handleWebhookMessage(body, web.deps)).toBe('done');
  }
  for (let i = 0; i < 100; i++) {
    const queued = web.queue.take();
    if (queued.length === 0) return;
    for (const m of queued) await handleWebhookMessage(m.body, web.deps);
  }
}

it('announces wallet.created to wallet.all, and the transfer status to its callback_url', async () => {
  const f = fakeWallets();
  const web = fakeWebhooks();
  await createSubscription({ tenantId: T, credential: 'test' }, { url: 'https://hooks.example.com/w', event_types: ['wallet.all'] }, web.clock.now(), web.deps);
  await f.ledger.post({ tenantId: T, entry: creditEntry({ account: MAIN, currency: 'USDTERC20', amount: '9', type: 'adjustment', reason: 'test' }) });
  const wallet = await createWallet(T, { name: 'W' }, f.deps);
  const t = await createTransfer({ tenantId: T, type: 'to_sub', body: { wallet_id: String(wallet.id), currency: 'USDTERC20', amount: '9' } }, f.deps);
  await settleTransfer({ tenantId: T, transferId: t.id }, f.deps);
  await deliver(web, [...f.wallets.events, ...f.transfers.events], 'https://shop.example.com/cb');

  const sent = web.sender.requests.map((r) => ({ url: r.url, body: JSON.parse(r.body) as Record<string, unknown> & { data: Record<string, unknown> } }));
  // wallet.balance_changed is told by the table's stream, not by the use cases (test/integration/wallets/balance-events.test.ts).
  expect(sent.filter((r) => r.url === 'https://hooks.example.com/w').map((r) => [r.body.event, r.body.data.wallet_id])).toEqual([
    ['wallet.created', wallet.wallet_id],
  ]);
  const callbacks = sent.filter((r) => r.url === 'https://shop.example.com/cb');
  expect(callbacks.map((r) => [r.body.event, r.body.data.status, r.body.data.previous_status])).toEqual([
    ['wallet_transfer_status_update', 'accepted', null],
    ['wallet_transfer_status_update', 'completed', 'accepted'],
  ]);
  expect(callbacks[0]?.body).toEqual({
    event: 'wallet_transfer_status_update',
    data: expect.objectContaining({ transfer_id: t.id }),
    timestamp: expect.any(String),
  });
  expect(sent.some((r) => r.body.event === 'wallet_transfer.accepted')).toBe(false);
});
