import { resetConfig } from '../../../shared/config/config.js';
import { add } from '../../../shared/domain/money.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { getBalance, listAllEntries } from '../../../shared/store/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { jest } from '@jest/globals';
import { main } from '../../../scripts/gateway.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, tenantWithToken } from '../payments/support.js';
import { settle } from './support.js';
import { walletsRuntime } from '../../../shared/runtime/wallets.js';
import { settleTransfer } from '../../../shared/usecases/wallets/settle-transfer.js';

/** The wallets API against DynamoDB Local: CRUD, transfers both ways through the real worker, refusals, concurrency. */
let table: TestTable;
let a: { tenantId: string; bearer: string };
let b: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let callB: ReturnType<typeof caller>;

const fund = (tenantId: string, currency: string, amount: string) =>
  creditAdjustment({ tenant_id: tenantId, currency, amount, reason: 'test funding' }, ledgerRuntime());

beforeAll(async () => {
  table = await startTestTable();
  process.env.ALLOW_LOOPBACK_CALLBACKS = 'true';
  resetConfig();
  a = await tenantWithToken('Wallets A');
  b = await tenantWithToken('Wallets B');
  const { handler } = await import('../../../functions/wallets/handler.js');
  call = caller(handler, () => a.bearer);
  callB = caller(handler, () => b.bearer);
});

afterAll(async () => {
  await table?.stop();
});

describe('wallet records', () => {
  it('creates, lists, retrieves by id or uuid, updates and deletes; another tenant sees 404', async () => {
    const first = await call('POST', '/wallets/', { body: { name: 'Seller one', external_id: 'seller-1' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ id: 1, name: 'Seller one', external_id: 'seller-1', balances: [] });
    expect(first.body.wallet_id).toMatch(/^[0-9a-f-]{36}$/);
    const second = await call('POST', '/wallets/', { body: { name: 'Seller two' } });
    expect([second.status, second.body.id, second.body.external_id]).toEqual([201, 2, null]);

    const duplicate = await call('POST', '/wallets/', { body: { name: 'Again', external_id: 'seller-1' } });
    expect([duplicate.status, duplicate.body.error.code, Object.keys(duplicate.body.error.details)]).toEqual([400, 'invalid_request', ['external_id']]);
    const nameless = await call('POST', '/wallets/', { body: { external_id: 'x' } });
    expect([nameless.status, nameless.body.error.code]).toEqual([400, 'invalid_request']);

    const list = await call('GET', '/wallets/', { query: { limit: '1', offset: '1' } });
    expect([list.status, list.body.total, list.body.accounts.map((w: { id: number }) => w.id)]).toEqual([200, 2, [2]]);

    expect((await call('GET', '/wallets/1/')).body.wallet_id).toBe(first.body.wallet_id);
    expect((await call('GET', `/wallets/${first.body.wallet_id}/`)).body.id).toBe(1);
    expect((await call('GET', '/wallets/99/')).status).toBe(404);
    expect((await call('GET', '/wallets/not-a-wallet/')).status).toBe(404);
    expect((await callB('GET', '/wallets/1/')).status).toBe(404);
    expect((await callB('GET', `/wallets/${first.body.wallet_id}/`)).status).toBe(404);
    expect((await callB('GET', '/wallets/')).body).toEqual({ accounts: [], total: 0 });

    const patched = await call('PATCH', `/wallets/${first.body.wallet_id}/`, { body: { name: 'Seller uno', external_id: 'seller-uno' } });
    expect([patched.status, patched.body.name, patched.body.external_id]).toEqual([200, 'Seller uno', 'seller-uno']);
    // The old external id is free again, the new one taken.
    expect((await call('POST', '/wallets/balances/', { body: { external_id: 'seller-uno' } })).body.id).toBe(1);
    expect((await call('POST', '/wallets/balances/', { body: { external_id: 'seller-1' } })).status).toBe(404);
    expect((await call('PATCH', '/wallets/2/', { body: { external_id: 'seller-uno' } })).status).toBe(400);

    const balance = await call('GET', '/wallets/2/balance/');
    expect([balance.status, balance.body.balances]).toEqual([200, []]);

    expect((await callB('DELETE', '/wallets/2/')).status).toBe(404);
    expect((await call('DELETE', '/wallets/2/')).status).toBe(204);
    expect((await call('GET', '/wallets/2/')).status).toBe(404);
    expect((await call('GET', '/wallets/')).body.total).toBe(1);
    // Ids are never reused.
    expect((await call('POST', '/wallets/', { body: { name: 'Seller three' } })).body.id).toBe(3);
  });

  it('answers 401 without a valid token, and reads with read but changes only with read write', async () => {
    const { handler } = await import('../../../functions/wallets/handler.js');
    expect((await caller(handler, () => 'nope')('GET', '/wallets/')).status).toBe(401);
    const readOnly = await tenantWithToken('Wallets read-only', ['read']);
    const reader = caller(handler, () => readOnly.bearer);
    expect((await reader('GET', '/wallets/')).status).toBe(200);
    expect((await reader('POST', '/wallets/transfer-history/', { body: {} })).status).toBe(200);
    const refused = await reader('POST', '/wallets/', { body: { name: 'No' } });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'permission_denied']);
  });

  it('gives concurrent creations distinct ids and an exact total', async () => {
    const c = await tenantWithToken('Wallets C');
    const callC = caller((await import('../../../functions/wallets/handler.js')).handler, () => c.bearer);
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => callC('POST', '/wallets/', { body: { name: `W${i}` } })));
    expect(made.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(new Set(made.map((r) => r.body.id)).size).toBe(12);
    expect((await callC('GET', '/wallets/')).body.total).toBe(12);
  });
});

describe('transfers', () => {
  it('moves money main -> wallet -> main through the worker, refuses what the source cannot cover, and refuses deleting a funded wallet', async () => {
    const t = await tenantWithToken('Wallets T');
    const callT = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
    const wallet = (await callT('POST', '/wallets/', { body: { name: 'Funded' } })).body;
    const account = `wallet:${wallet.wallet_id}` as const;
    await fund(t.tenantId, 'USDTERC20', '100');

    const tooMuch = await callT('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.id, currency: 'USDTERC20', amount: '100.5' } });
    expect([tooMuch.status, tooMuch.body.error.code, tooMuch.body.error.details.available]).toEqual([400, 'insufficient_balance', '100']);
    expect((await callT('POST', '/wallets/transfer-history/', { body: {} })).body.total).toBe(0);

    const headers = { 'idempotency-key': 'to-sub-1' };
    const accepted = await callT('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.wallet_id, currency: 'USDTERC20', amount: '40' }, headers });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'accepted', message: expect.any(String) });
    const replay = await callT('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.wallet_id, currency: 'USDTERC20', amount: '40' }, headers });
    expect([replay.status, replay.body.transfer_id]).toEqual([202, accepted.body.transfer_id]);
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '60', pending: '0', locked: '40' });

    await settle(accepted.body.transfer_id);
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '60', pending: '0', locked: '0' });
    expect(await getBalance(t.tenantId, account, 'USDTERC20')).toEqual({ amount: '40', pending: '0', locked: '0' });
    const shown = (await callT('GET', `/wallets/${wallet.id}/`)).body.balances;
    expect(shown).toEqual([
      { currency: 'USDTERC20', amount: '40.000000', pending_amount: '0.000000', available_balance: '40.000000', locked_amount: '0.000000' },
    ]);

    const userApi = caller((await import('../../../functions/user/handler.js')).handler, () => t.bearer);
    const balances = await userApi('GET', '/user/balances/');
    expect(balances.body.sub_accounts).toEqual({
      USDTERC20: {
        total_amount: '40.000000',
        total_pending: '0.000000',
        accounts: [
          {
            account_name: 'Funded',
            account_id: wallet.wallet_id,
            amount: '40.000000',
            pending_amount: '0.000000',
            available_balance: '40.000000',
            locked_amount: '0.000000',
          },
        ],
      },
    });
    expect(balances.body.statistics.subaccounts_count).toBe(1);
    // The main account's history shows the transfer: held, then moved out.
    const mainHistory = await userApi('GET', '/user/balances/history/', { query: { type: 'transfer' } });
    expect(
      mainHistory.body.results.map((r: { amount: string; locked_amount: string; reference: unknown }) => [r.amount, r.locked_amount, r.reference]),
    ).toEqual([
      ['0.000000', '-40.000000', { type: 'wallet_transfer', id: accepted.body.transfer_id }],
      ['-40.000000', '40.000000', { type: 'wallet_transfer', id: accepted.body.transfer_id }],
    ]);
    expect((await userApi('GET', '/user/me/')).body.features.multi_wallet).toBe(true);

    const printed: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((text: string) => void printed.push(text));
    try {
      expect(await main(['wallet', 'list', '--tenant', t.tenantId])).toBe(0);
      expect(await main(['wallet', 'show', '--tenant', t.tenantId, wallet.wallet_id, '--json'])).toBe(0);
    } finally {
      log.mockRestore();
    }
    expect(printed[0]).toContain(`1 wallet(s)\n#${wallet.id} ${wallet.wallet_id} "Funded"\n    USDTERC20: 40.000000`);
    expect(JSON.parse(printed[1] ?? '')).toMatchObject({ id: wallet.id, balances: [{ currency: 'USDTERC20', available_balance: '40.000000' }] });

    const refused = await callT('DELETE', `/wallets/${wallet.id}/`);
    expect([refused.status, refused.body.error.code, refused.body.error.details.currencies]).toEqual([409, 'invalid_state', ['USDTERC20']]);

    const back = await callT('POST', '/wallets/withdraw-to-master/', { body: { wallet_id: wallet.id, currency: 'USDTERC20', amount: '40' } });
    expect(back.status).toBe(202);
    await settle(back.body.transfer_id);
    expect(await getBalance(t.tenantId, account, 'USDTERC20')).toEqual({ amount: '0', pending: '0', locked: '0' });
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '100', pending: '0', locked: '0' });

    const history = await callT('POST', '/wallets/transfer-history/', { body: { wallet_id: wallet.id } });
    expect(history.body.total).toBe(2);
    expect(history.body.transfers.map((x: { transfer_type: string; status: string }) => [x.transfer_type, x.status])).toEqual([
      ['to_master', 'completed'],
      ['to_sub', 'completed'],
    ]);
    expect((await callT('POST', '/wallets/transfer-history/', { body: { transfer_type: 'to_sub', status: 'completed' } })).body.total).toBe(1);
    expect((await callT('DELETE', `/wallets/${wallet.id}/`)).status).toBe(204);
  });

  it('fails a transfer whose wallet is gone before it settles, returning the hold', async () => {
    const t = await tenantWithToken('Wallets F');
    const callT = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
    const wallet = (await callT('POST', '/wallets/', { body: { name: 'Short-lived' } })).body;
    await fund(t.tenantId, 'USDTERC20', '5');
    const accepted = await callT('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.id, currency: 'USDTERC20', amount: '5' } });
    expect((await callT('DELETE', `/wallets/${wallet.id}/`)).status).toBe(204);
    await settle(accepted.body.transfer_id);
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '5', pending: '0', locked: '0' });
    const history = await callT('POST', '/wallets/transfer-history/', { body: {} });
    expect(history.body.transfers[0]).toMatchObject({ status: 'failed', failure_reason: expect.any(String) });
  });

  it('fails a transfer whose wallet is deleted between the worker reading it and settling', async () => {
    const t = await tenantWithToken('Wallets G');
    const callT = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
    const wallet = (await callT('POST', '/wallets/', { body: { name: 'Racing' } })).body;
    await fund(t.tenantId, 'USDTERC20', '4');
    const accepted = await callT('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.id, currency: 'USDTERC20', amount: '4' } });
    const runtime = walletsRuntime();
    const stale = await runtime.wallets.get(t.tenantId, { kind: 'id', id: wallet.id });
    expect((await callT('DELETE', `/wallets/${wallet.id}/`)).status).toBe(204);
    const staleRead = { ...runtime, wallets: { ...runtime.wallets, get: async () => stale } };
    expect((await settleTransfer({ tenantId: t.tenantId, transferId: accepted.body.transfer_id }, staleRead))?.status).toBe('failed');
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '4', pending: '0', locked: '0' });
    expect(await getBalance(t.tenantId, `wallet:${wallet.wallet_id}`, 'USDTERC20')).toEqual({ amount: '0', pending: '0', locked: '0' });
  });

  it('accepts exactly 10 of 100 concurrent transfers against a balance for 10; balances and journal agree', async () => {
    const t = await tenantWithToken('Wallets R');
    const callT = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
    const wallet = (await callT('POST', '/wallets/', { body: { name: 'Race' } })).body;
    await fund(t.tenantId, 'USDTERC20', '10');
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => callT('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.id, currency: 'USDTERC20', amount: '1' } })),
    );
    const acceptedIds = answers.filter((r) => r.status === 202).map((r) => r.body.transfer_id as string);
    expect(acceptedIds).toHaveLength(10);
    expect(answers.filter((r) => r.status !== 202).map((r) => [r.status, r.body.error.code])).toEqual(Array(90).fill([400, 'insufficient_balance']));
    for (const id of acceptedIds) await settle(id);
    const main = await getBalance(t.tenantId, 'main', 'USDTERC20');
    const sub = await getBalance(t.tenantId, `wallet:${wallet.wallet_id}`, 'USDTERC20');
    expect([main, sub]).toEqual([
      { amount: '0', pending: '0', locked: '0' },
      { amount: '10', pending: '0', locked: '0' },
    ]);
    // The journal, replayed, gives the balances.
    const sums = new Map<string, string>();
    for (const entry of await listAllEntries(t.tenantId))
      for (const line of entry.lines) sums.set(`${line.account}|${line.field}`, add(sums.get(`${line.account}|${line.field}`) ?? '0', line.delta));
    expect([sums.get('main|amount'), sums.get('main|locked'), sums.get(`wallet:${wallet.wallet_id}|amount`)]).toEqual(['0', '0', '10']);
  });
});
