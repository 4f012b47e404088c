import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { main } from '../../../scripts/gateway.js';
import { paymentRoutes } from '../../../functions/payments/routes.js';
import { parseConfig, resetConfig } from '../../../shared/config/config.js';
import { transition as paymentTransition } from '../../../shared/domain/payments.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { transition as withdrawalTransition } from '../../../shared/domain/withdrawals.js';
import { add } from '../../../shared/domain/money.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { dynamoWithdrawals } from '../../../shared/store/withdrawals.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { debitAdjustment } from '../../../shared/usecases/ledger/debit-adjustment.js';
import { completePayment } from '../../../shared/usecases/payments/settle.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { aDeposit } from '../../support/fixtures/payments.js';
import { withdrawalsApi } from '../../support/withdrawals.js';
import { caller, servingEth, putFixedRates, tenantWithToken } from '../payments/support.js';
import { settle } from '../wallets/support.js';

/**
 * The transaction history on DynamoDB Local: payments in several states, withdrawals, wallet transfers and
 * adjustments of one tenant in one list; every filter, offset and cursor paging, the statistics equal to what
 * the list holds, bad filters refused, and another tenant sees none of it.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
type Row = Record<string, string | null | undefined>;
let call: ReturnType<typeof caller>;
let callB: ReturnType<typeof caller>;
let a: { tenantId: string; bearer: string };
const made: { payments: string[]; withdrawals: string[]; transfers: string[]; wallet: string } = { payments: [], withdrawals: [], transfers: [], wallet: '' };

const list = async (query: Record<string, string> = {}) => {
  const res = await call('GET', '/transactions/transactions/', { query });
  expect(res.status).toBe(200);
  return res.body as { transactions: Row[]; total: number; next_cursor: string | null };
};

async function payTo(p: PaymentState, status: 'confirming' | 'completed'): Promise<void> {
  const deposit = aDeposit(randomUUID(), p.amountCrypto, { currency: p.currency }, new Date());
  let s = await dynamoPayments.save(p, paymentTransition(p, { kind: 'deposit', deposit }, new Date()), new Date());
  if (status === 'confirming') return;
  s = await dynamoPayments.save(
    s,
    paymentTransition(s, { kind: 'confirmations', byDeposit: { [deposit.id]: 12 }, confirmationsNeeded: 12, tolerancePercent: '0' }, new Date()),
    new Date(),
  );
  s = await dynamoPayments.save(s, paymentTransition(s, { kind: 'sweep_started' }, new Date()), new Date());
  await completePayment(s, '0xsweep', paymentsRuntime(parseConfig(process.env)), new Date());
}

beforeAll(async () => {
  table = await startTestTable();
  process.env.ALLOW_LOOPBACK_CALLBACKS = 'true';
  resetConfig();
  await putFixedRates();
  a = await tenantWithToken('History A');
  const b = await tenantWithToken('History B');
  const { handler } = await import('../../../functions/transactions/handler.js');
  call = caller(handler, () => a.bearer);
  callB = caller(handler, () => b.bearer);

  const cfg = servingEth();
  const payments = caller(createApi(paymentRoutes, paymentsRuntime(cfg)), () => a.bearer);
  const withdrawals = caller(withdrawalsApi(), () => a.bearer);
  const wallets = caller((await import('../../../functions/wallets/handler.js')).handler, () => a.bearer);

  await creditAdjustment({ tenant_id: a.tenantId, currency: 'USDTERC20', amount: '500', reason: 'test funding' }, ledgerRuntime());
  await debitAdjustment({ tenant_id: a.tenantId, currency: 'USDTERC20', amount: '1.5', reason: 'correction' }, ledgerRuntime());
  for (let i = 0; i < 4; i++) {
    const res = await payments('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', order_id: `order-${i}` } });
    expect(res.status).toBe(201);
    made.payments.push(res.body.transaction_id as string);
  }
  const [, confirming, completed, cancelled] = made.payments;
  await payTo((await dynamoPayments.get(a.tenantId, confirming ?? ''))!, 'confirming');
  await payTo((await dynamoPayments.get(a.tenantId, completed ?? ''))!, 'completed');
  expect((await payments('POST', `/payments/${cancelled}/cancel/`)).status).toBe(200);

  for (let i = 0; i < 3; i++) {
    const res = await withdrawals('POST', '/withdrawal/', { body: { amount: '10', currency: 'USDTERC20', address: DEST, custom_id: `w-${i}` } });
    expect(res.status).toBe(201);
    made.withdrawals.push(String(res.body.id));
  }
  expect((await withdrawals('POST', `/withdrawal/${made.withdrawals[1]}/cancel/`)).status).toBe(200);
  let w = (await dynamoWithdrawals.get(a.tenantId, made.withdrawals[2] ?? ''))!;
  w = await dynamoWithdrawals.save(w, withdrawalTransition(w, { kind: 'dispatched' }, new Date()), new Date());
  await dynamoWithdrawals.save(w, withdrawalTransition(w, { kind: 'chain_confirmed', txHash: '0xpaid' }, new Date()), new Date());

  made.wallet = (await wallets('POST', '/wallets/', { body: { name: 'Seller' } })).body.wallet_id as string;
  for (const amount of ['30', '12']) {
    const res = await wallets('POST', '/wallets/transfer-to-user/', { body: { wallet_id: made.wallet, currency: 'USDTERC20', amount } });
    made.transfers.push(res.body.transfer_id as string);
  }
  await settle(made.transfers[0] ?? '');
});

afterAll(async () => {
  await table?.stop();
});

it('lists every movement newest first, each with its amounts, status and references', async () => {
  const all = await list({ limit: '200' });
  expect(all.total).toBe(4 + 3 + 2 + 2);
  expect(all.transactions.map((t) => t.type).sort()).toEqual([
    'adjustment',
    'adjustment',
    'payment',
    'payment',
    'payment',
    'payment',
    'transfer',
    'transfer',
    'withdrawal',
    'withdrawal',
    'withdrawal',
  ]);
  const created = all.transactions.map((t) => String(t.created_at));
  expect(created).toEqual([...created].sort().reverse());
  const byId = new Map(all.transactions.map((t) => [t.id, t]));
  expect(made.payments.map((id) => byId.get(id)?.status)).toEqual(['waiting', 'confirming', 'completed', 'cancelled']);
  expect(made.withdrawals.map((id) => byId.get(id)?.status)).toEqual(['pending', 'cancelled', 'completed']);
  expect(made.transfers.map((id) => byId.get(id)?.status)).toEqual(['completed', 'accepted']);
  // A completed payment: received 25, fee 0.25 (1 %), credited 24.75; a withdrawal of 10 with 3.10 of fees. Amounts
  // are spelled as the movement's own record spells them: USDT's 6 places, a withdrawal's 8.
  expect(byId.get(made.payments[2] ?? '')).toMatchObject({
    amount: '25.000000',
    fee: '0.250000',
    net_amount: '24.750000',
    order_id: 'order-2',
    direction: 'in',
    wallet_id: null,
  });
  expect(byId.get(made.withdrawals[2] ?? '')).toMatchObject({
    amount: '10.00000000',
    fee: '3.10000000',
    net_amount: '13.10000000',
    custom_id: 'w-2',
    transaction_hash: '0xpaid',
    direction: 'out',
  });
  expect(byId.get(made.transfers[0] ?? '')).toMatchObject({ amount: '30.000000', subtype: 'to_sub', direction: 'in', wallet_id: made.wallet });
  const adjustments = all.transactions.filter((t) => t.type === 'adjustment').map((t) => [t.subtype, t.amount, t.status]);
  expect(adjustments.sort()).toEqual([
    ['credit', '500.000000', 'completed'],
    ['debit', '1.500000', 'completed'],
  ]);
});

it('filters by type, status, currency, wallet and dates, with totals that agree', async () => {
  const ids = async (query: Record<string, string>) => {
    const page = await list({ ...query, limit: '200' });
    expect(page.total).toBe(page.transactions.length);
    return page.transactions.map((t) => t.id).sort();
  };
  expect(await ids({ type: 'payment' })).toEqual([...made.payments].sort());
  expect(await ids({ type: 'withdrawal', status: 'completed' })).toEqual([made.withdrawals[2]]);
  expect((await ids({ status: 'completed' })).length).toBe(1 + 1 + 1 + 2);
  expect(await ids({ currency: 'usdcerc20' })).toEqual([]);
  expect((await ids({ currency: 'USDTERC20' })).length).toBe(11);
  expect(await ids({ wallet_id: made.wallet })).toEqual([...made.transfers].sort());
  expect(await ids({ wallet_id: made.wallet, status: 'accepted' })).toEqual([made.transfers[1]]);
  // Date-time bounds are exact and inclusive; a date alone covers its day.
  const all = (await list({ limit: '200' })).transactions;
  const middle = String(all[5]?.created_at);
  const after = all
    .filter((t) => String(t.created_at) >= middle)
    .map((t) => t.id)
    .sort();
  expect(await ids({ date_from: middle })).toEqual(after);
  expect((await ids({ date_to: middle })).length).toBe(all.filter((t) => String(t.created_at) <= middle).length);
  const today = middle.slice(0, 10);
  expect((await ids({ date_from: today, date_to: today })).length).toBe(11);
  expect(await ids({ date_to: '2020-01-01' })).toEqual([]);
});

it('pages by offset and by cursor, each movement once', async () => {
  const whole = (await list({ limit: '200' })).transactions.map((t) => t.id);
  const byOffset: unknown[] = [];
  for (let offset = 0; offset < whole.length; offset += 4) byOffset.push(...(await list({ limit: '4', offset: String(offset) })).transactions.map((t) => t.id));
  expect(byOffset).toEqual(whole);
  const byCursor: unknown[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: { transactions: Row[]; next_cursor: string | null } = await list({ limit: '3', ...(cursor ? { cursor } : {}) });
    byCursor.push(...page.transactions.map((t) => t.id));
    cursor = page.next_cursor;
    pages++;
  } while (cursor && pages < 20);
  expect(byCursor).toEqual(whole);
  // A filtered cursor walk.
  const first = await list({ type: 'payment', limit: '3' });
  const second = await list({ type: 'payment', limit: '3', cursor: first.next_cursor ?? '' });
  expect([...first.transactions, ...second.transactions].map((t) => t.id).sort()).toEqual([...made.payments].sort());
});

it('answers statistics equal to what the list holds', async () => {
  const stats = await call('GET', '/transactions/stats/');
  expect(stats.status).toBe(200);
  const all = (await list({ limit: '200' })).transactions;
  for (const type of ['payment', 'withdrawal', 'transfer', 'adjustment']) {
    const mine = all.filter((t) => t.type === type);
    const byStatus: Record<string, number> = {};
    for (const t of mine) byStatus[String(t.status)] = (byStatus[String(t.status)] ?? 0) + 1;
    expect([type, stats.body.counts[type]]).toEqual([type, { total: mine.length, by_status: byStatus }]);
  }
  const completed = (type: string) => all.filter((t) => t.type === type && t.status === 'completed');
  const sum = (rows: Row[], field: string) => rows.reduce((acc, t) => add(acc, String(t[field])), '0');
  expect(stats.body.volume.USDTERC20).toEqual({
    payment: { amount: sum(completed('payment'), 'amount'), fees: sum(completed('payment'), 'fee') },
    withdrawal: { amount: sum(completed('withdrawal'), 'amount'), fees: sum(completed('withdrawal'), 'fee') },
    transfer: { amount: '30', fees: '0' },
    adjustment: { amount: '501.5', fees: '0' },
  });
  expect(stats.body.fees).toEqual({ USDTERC20: '3.35' });
  // USD volume: the completed payment's and withdrawal's USD values fixed at creation (the list shows them).
  expect(stats.body.volume_usd).toEqual({ payment: sum(completed('payment'), 'amount_usd'), withdrawal: sum(completed('withdrawal'), 'amount_usd') });
  expect([Number(stats.body.volume_usd.payment), Number(stats.body.volume_usd.withdrawal)]).toEqual([25, 10]);
  expect(stats.body.total_volume_usd).toBe(add(stats.body.volume_usd.payment, stats.body.volume_usd.withdrawal));
  // /user/me/ takes its totals from the same counters (all time).
  const me = await caller((await import('../../../functions/user/handler.js')).handler, () => a.bearer)('GET', '/user/me/');
  expect(me.body.statistics).toMatchObject({
    total_payments: stats.body.counts.payment.total,
    total_withdrawals: stats.body.counts.withdrawal.total,
  });
  // Shown to the cent there.
  expect(Number(me.body.statistics.total_volume_usd)).toBe(Number(stats.body.volume_usd.payment));
  // The operator CLI prints the same statistics.
  const printed: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((text: string) => void printed.push(text));
  try {
    expect(await main(['tenant', 'stats', a.tenantId, '--json'])).toBe(0);
    expect(await main(['tenant', 'stats', a.tenantId])).toBe(0);
  } finally {
    log.mockRestore();
  }
  expect(JSON.parse(printed[0] ?? '')).toEqual(stats.body);
  expect(printed[1]).toContain(`payment          4  (cancelled 1, completed 1, confirming 1, waiting 1)`);
  // A period before any of it is empty.
  const empty = await call('GET', '/transactions/stats/', { query: { date_from: '2020-01-01', date_to: '2020-01-31' } });
  expect([empty.body.date_from, empty.body.date_to, empty.body.counts.payment.total, empty.body.total_volume_usd]).toEqual([
    '2020-01-01',
    '2020-01-31',
    0,
    '0',
  ]);
});

it('refuses bad filters naming each field, and shows another tenant nothing', async () => {
  const bad = async (query: Record<string, string>) => {
    const res = await call('GET', '/transactions/transactions/', { query });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    return Object.keys(res.body.error.details).sort();
  };
  expect(await bad({ type: 'deposit' })).toEqual(['type']);
  expect(await bad({ type: 'payment', status: 'pending' })).toEqual(['status']);
  expect(await bad({ status: 'lost', currency: 'NOPE' })).toEqual(['currency', 'status']);
  expect(await bad({ date_from: '2026-02-01', date_to: '2026-01-01' })).toEqual(['date_to']);
  expect(await bad({ date_from: 'yesterday' })).toEqual(['date_from']);
  expect(await bad({ limit: '0' })).toEqual(['limit']);
  expect(await bad({ wallet_id: '7' })).toEqual(['wallet_id']);
  expect(await bad({ cursor: 'not-a-cursor' })).toEqual(['cursor']);
  const stats = await call('GET', '/transactions/stats/', { query: { date_from: '2026-02-01', date_to: '2026-01-01' } });
  expect([stats.status, Object.keys(stats.body.error.details)]).toEqual([400, ['date_to']]);

  const theirs = await callB('GET', '/transactions/transactions/');
  expect([theirs.status, theirs.body.total, theirs.body.transactions]).toEqual([200, 0, []]);
  expect((await callB('GET', '/transactions/stats/')).body.counts.payment.total).toBe(0);
  // A's cursor names a place in A's history: B cannot use it.
  const cursor = (await list({ limit: '1' })).next_cursor ?? '';
  const refused = await callB('GET', '/transactions/transactions/', { query: { cursor } });
  expect([refused.status, Object.keys(refused.body.error.details)]).toEqual([400, ['cursor']]);
  // Reads need only the read scope; nothing else answers 401 without a token.
  const { handler } = await import('../../../functions/transactions/handler.js');
  expect((await caller(handler, () => 'nope')('GET', '/transactions/transactions/')).status).toBe(401);
});
