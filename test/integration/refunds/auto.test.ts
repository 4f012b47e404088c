import { jest } from '@jest/globals';
import { resetConfig } from '../../../shared/config/config.js';
import type { Config } from '../../../shared/config/config.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { excessRefundsRuntime } from '../../../shared/runtime/refunds.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { dynamoRefunds } from '../../../shared/store/refunds.js';
import { completePayment } from '../../../shared/usecases/payments/settle.js';
import { AUTO_REFUND_REASON } from '../../../shared/usecases/refunds/auto.js';
import { main } from '../../../scripts/gateway.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { outboxChanges } from '../../support/outbox.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { paymentOf, routedApi } from './support.js';

/**
 * `auto_refund_excess` on DynamoDB Local: the merchant sets it with `PATCH /user/me/` (the operator with `tenant
 * configure`), and an overpaid payment completing through the real completion use case opens a claim-link refund of
 * its excess in the transaction that credits it (held at once, its claim_url in `refund.created`); below the
 * threshold, below the network's smallest refund, or with the setting off, none.
 */
let table: TestTable;
let cfg: Config;
let handler: Handler;

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
  cfg = servingEth({ PUBLIC_BASE_URL: 'https://pay.example.com', HOT_WALLET_KEY_ID: 'hot-wallet-key' });
  handler = routedApi(cfg, ['payments', 'refunds', 'user']);
});

afterAll(async () => {
  await table?.stop();
});

async function merchant(name: string) {
  const t = await tenantWithToken(name);
  return { ...t, call: caller(handler, () => t.bearer) };
}

/** A 100 USDTERC20 payment (fee 1, the merchant's) that received `got`, confirmed and swept: completed by the use case. */
async function completedWith(m: Awaited<ReturnType<typeof merchant>>, got: string): Promise<PaymentState> {
  const sending = await paymentOf(m, got, 'sending');
  const done = await completePayment(sending, '0xsweep', { ...paymentsRuntime(cfg), excessRefund: excessRefundsRuntime(cfg) }, new Date());
  expect(done.status).toBe('completed');
  return done;
}

describe('PATCH /user/me/', () => {
  it('sets auto_refund_excess, the fields given replacing the current ones; GET /user/me/ shows it; off by default', async () => {
    const m = await merchant('Auto settings');
    expect((await m.call('GET', '/user/me/')).body.auto_refund_excess).toEqual({ enabled: false, threshold_usd: '1' });
    const on = await m.call('PATCH', '/user/me/', { body: { auto_refund_excess: { enabled: true, threshold_usd: '2.50' } } });
    expect([on.status, on.body.auto_refund_excess]).toEqual([200, { enabled: true, threshold_usd: '2.50' }]);
    const threshold = await m.call('PATCH', '/user/me/', { body: { auto_refund_excess: { threshold_usd: '7' } } });
    expect(threshold.body.auto_refund_excess).toEqual({ enabled: true, threshold_usd: '7' });
    expect((await m.call('GET', '/user/me/')).body.auto_refund_excess).toEqual({ enabled: true, threshold_usd: '7' });
  });

  it('refuses, in the envelope: a bad threshold, an unknown field, a field the operator sets', async () => {
    const m = await merchant('Auto refusals');
    for (const body of [
      { auto_refund_excess: { threshold_usd: '-1' } },
      { auto_refund_excess: { threshold_usd: '1.001' } },
      { auto_refund_excess: { enabled: 'yes' } },
      { auto_refund_excess: { enabled: true, extra: 1 } },
      { transaction_fee: '0' },
    ]) {
      const res = await m.call('PATCH', '/user/me/', { body });
      expect([JSON.stringify(body), res.status, res.body.error?.code]).toEqual([JSON.stringify(body), 400, 'invalid_request']);
    }
    expect((await m.call('GET', '/user/me/')).body).toMatchObject({ transaction_fee: '1', auto_refund_excess: { enabled: false, threshold_usd: '1' } });
  });
});

describe('an overpaid payment completing for a tenant with auto_refund_excess', () => {
  it('opens a claim-link refund of its excess with the credit, held at once, its claim_url in refund.created', async () => {
    const m = await merchant('Auto on');
    await m.call('PATCH', '/user/me/', { body: { auto_refund_excess: { enabled: true, threshold_usd: '5' } } });
    const p = await completedWith(m, '120');
    // Credited 119 (120 less the fee of 1), the excess of 20 held for the refund in the same entry.
    expect(await getBalance(m.tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '99', locked: '20' });
    // The merchant sees the hold while it lasts.
    const shown = (await m.call('GET', '/user/balances/')).body.account.USDTERC20;
    expect(shown).toMatchObject({ available_balance: '99.000000', locked_amount: '20.000000' });
    const refunds = await dynamoRefunds.listByPayment(m.tenantId, p.id);
    expect(refunds.map((r) => [r.status, r.amount, r.reason])).toEqual([['awaiting_address', '20', AUTO_REFUND_REASON]]);
    const listed = await m.call('GET', `/payments/${p.id}/refunds/`);
    const claimUrl = listed.body.results[0].claim_url as string;
    expect(claimUrl).toMatch(/^https:\/\/pay\.example\.com\/refund-claims\/[A-Za-z0-9_-]{22}$/);
    const events = (await outboxChanges(`refund:${refunds[0]?.id as string}:`)).flat();
    expect(events.find((e) => e.type === 'refund.created')?.payload).toMatchObject({ status: 'awaiting_address', amount: '20', claim_url: claimUrl });
    const payment = await m.call('GET', `/payments/${p.id}/`);
    expect([payment.body.status, payment.body.refunded_amount]).toEqual(['completed', '20']);
    expect((await m.call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '20', refundable: '99' });
    // Cancelled, the excess is the merchant's.
    expect((await m.call('POST', `/refunds/${refunds[0]?.id as string}/cancel/`)).status).toBe(200);
    expect(await getBalance(m.tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '119', locked: '0' });
    expect((await m.call('GET', '/user/balances/')).body.account.USDTERC20).toMatchObject({ available_balance: '119.000000', locked_amount: '0.000000' });
  });

  it('opens none below the threshold, below the network smallest refund, for an exact payment, or with the setting off', async () => {
    const high = await merchant('Auto high threshold');
    await high.call('PATCH', '/user/me/', { body: { auto_refund_excess: { enabled: true, threshold_usd: '25' } } });
    const small = await merchant('Auto low threshold');
    await small.call('PATCH', '/user/me/', { body: { auto_refund_excess: { enabled: true, threshold_usd: '0' } } });
    const off = await merchant('Auto off');
    for (const [m, got, credited] of [
      [high, '120', '119'], // 20 is below 25 USD
      [small, '110', '109'], // 10 is below the smallest refund on Ethereum (13: minimum 10 plus the network fee 3)
      [small, '100', '99'], // nothing in excess
      [off, '150', '149'],
    ] as const) {
      const p = await completedWith(m, got);
      expect(await dynamoRefunds.listByPayment(m.tenantId, p.id)).toEqual([]);
      expect(await getBalance(m.tenantId, 'main', 'USDTERC20')).toMatchObject({ locked: '0' });
      expect((await m.call('GET', `/payments/${p.id}/refundable/`)).body).toMatchObject({ refunded: '0', refundable: credited });
    }
  });

  it('the operator turns it on with tenant configure', async () => {
    const m = await merchant('Auto by operator');
    const out: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((text: string) => void out.push(text));
    try {
      const code = await main(['tenant', 'configure', m.tenantId, '--auto-refund-excess', 'true', '--auto-refund-threshold-usd', '3', '--json']);
      expect(code).toBe(0);
    } finally {
      log.mockRestore();
    }
    expect((await m.call('GET', '/user/me/')).body.auto_refund_excess).toEqual({ enabled: true, threshold_usd: '3' });
    const p = await completedWith(m, '130');
    expect((await dynamoRefunds.listByPayment(m.tenantId, p.id)).map((r) => r.amount)).toEqual(['30']);
  });
});
