import { depositAddress as create2Address, forwarderImplementationAddress, saltFor } from '../../../shared/chain/evm/create2.js';
import { tronDepositAddress } from '../../../shared/chain/tron/create2.js';
import { parseConfig } from '../../../shared/config/config.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { listAllEntries } from '../../../shared/store/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';
import { custodyApi } from '../../support/custody.js';

/**
 * The custody group on DynamoDB Local: accounts created, listed and read; deposit addresses on ETH, BSC and TRX
 * (the forwarder factories' CREATE2 addresses salted for the account, one per account and chain under concurrent
 * calls); balances as numbers with every chain's row; internal transfers and each refusal; tenancy.
 */
const FACTORY = '0x1111111111111111111111111111111111111111';
const TRX_FACTORY = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const TRX_IMPLEMENTATION = 'TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj';
let table: TestTable;
let a: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let callB: ReturnType<typeof caller>;
let handler: Handler;

beforeAll(async () => {
  table = await startTestTable();
  // USDT on TRON a little under the dollar, so values are visibly priced.
  await putFixedRates(new Date(), { USDTTRC20: '0.998' });
  // A deployment serving ETH, BSC and TRX deposit addresses (endpoints never dialled here).
  const cfg = parseConfig({
    ...process.env,
    FORWARDER_FACTORIES: JSON.stringify({ ETH: FACTORY, BSC: FACTORY, TRX: TRX_FACTORY }),
    FORWARDER_IMPLEMENTATION_TRX: TRX_IMPLEMENTATION,
    EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/', BSC: 'http://127.0.0.1:9/' }),
    TOKEN_CONTRACTS: JSON.stringify({ USDTERC20: '0x2222222222222222222222222222222222222222' }),
    // No Solana here: SOL addresses are refused.
    SOLANA_RPC_URL: undefined,
  });
  handler = custodyApi(cfg);
  a = await tenantWithToken('Custody A');
  const b = await tenantWithToken('Custody B');
  call = caller(handler, () => a.bearer);
  callB = caller(handler, () => b.bearer);
});

afterAll(async () => {
  await table?.stop();
});

const newAccount = async (body: Record<string, unknown> = {}) => {
  const res = await call('POST', '/custody/accounts', { body: { name: 'Treasury', ...body } });
  expect(res.status).toBe(201);
  return res.body as { account_id: string; name: string; account_type: string; provider: string; status: string; metadata: Record<string, string> };
};

const fund = (accountId: string, currency: string, amount: string) =>
  creditAdjustment({ tenant_id: a.tenantId, account: `custody:${accountId}`, currency, amount, reason: 'test funding' }, ledgerRuntime());

describe('accounts', () => {
  it('creates with defaults, lists with skip, limit and status, and reads one with its balances summary', async () => {
    const first = await newAccount({ metadata: { desk: 'ops' } });
    expect(first).toMatchObject({ name: 'Treasury', account_type: 'standard', provider: 'gateway', status: 'active', metadata: { desk: 'ops' } });
    expect(first.account_id).toMatch(/^[0-9a-f-]{36}$/);
    const cold = await newAccount({ name: 'Cold', account_type: 'cold' });
    const hot = await newAccount({ name: 'Hot', account_type: 'hot' });

    const all = await call('GET', '/custody/accounts', { query: { limit: '100' } });
    expect(all.body.map((x: { account_id: string }) => x.account_id).slice(-3)).toEqual([first.account_id, cold.account_id, hot.account_id]);
    const page = await call('GET', '/custody/accounts', { query: { skip: '1', limit: '1' } });
    expect(page.body.map((x: { account_id: string }) => x.account_id)).toEqual([all.body[1].account_id]);
    expect((await call('GET', '/custody/accounts', { query: { status: 'inactive' } })).body).toEqual([]);
    expect((await call('GET', '/custody/accounts', { query: { limit: '101' } })).status).toBe(400);

    const detail = await call('GET', `/custody/accounts/${cold.account_id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ account_id: cold.account_id, account_type: 'cold', updated_at: expect.any(String) });
    expect(detail.body.balances_summary).toEqual({
      total_usd: 0,
      blockchains: ['ETH', 'BSC', 'TRX', 'SOL'].map((blockchain) => ({ blockchain, token: 'USDT', balance: 0, usd_value: 0 })),
    });
  });

  it('refuses bad bodies naming the field', async () => {
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: 'X', account_type: 'warm' }, 'account_type'],
      [{ name: 'X', metadata: { n: 1 } }, 'metadata.n'],
      [{ name: 'X', provider: 'elsewhere' }, 'provider'],
    ] as const) {
      const res = await call('POST', '/custody/accounts', { body });
      expect([res.status, res.body.error.code, Object.keys(res.body.error.details)]).toEqual([400, 'invalid_request', [field]]);
    }
  });
});

describe('deposit addresses', () => {
  it('gives each account one address per chain, the CREATE2 forwarder salted for the account, even under 20 concurrent calls', async () => {
    const account = await newAccount();
    const salt = saltFor(a.tenantId, `custody:${account.account_id}`);
    const evm = create2Address(FACTORY, forwarderImplementationAddress(FACTORY), salt);
    const answers = await Promise.all(Array.from({ length: 20 }, () => call('POST', `/custody/accounts/${account.account_id}/addresses/ETH`)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((r) => r.body.address))).toEqual(new Set([evm]));
    expect(answers.filter((r) => r.body.is_new === true)).toHaveLength(1);
    expect(answers[0]?.body.qr_code).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(String(answers[0]?.body.qr_code).split(',')[1] ?? '', 'base64').toString()).toContain('<svg');

    const bsc = await call('POST', `/custody/accounts/${account.account_id}/addresses/bsc`);
    expect([bsc.body.blockchain, bsc.body.address, bsc.body.is_new]).toEqual(['BSC', evm, true]);
    const trx = await call('POST', `/custody/accounts/${account.account_id}/addresses/TRX`);
    expect([trx.body.address, trx.body.is_new]).toEqual([tronDepositAddress(TRX_FACTORY, TRX_IMPLEMENTATION, salt), true]);
    expect((await call('POST', `/custody/accounts/${account.account_id}/addresses/TRX`)).body.is_new).toBe(false);

    const listed = await call('GET', `/custody/accounts/${account.account_id}/addresses`);
    expect(
      listed.body.map((x: { blockchain: string; address: string; last_deposit_at: unknown }) => [x.blockchain, x.address, x.last_deposit_at]).sort(),
    ).toEqual(
      [
        ['BSC', evm, null],
        ['ETH', evm, null],
        ['TRX', trx.body.address, null],
      ].sort(),
    );
    // Another account of the same tenant gets another address.
    const other = await newAccount();
    expect((await call('POST', `/custody/accounts/${other.account_id}/addresses/ETH`)).body.address).not.toBe(evm);

    for (const chain of ['DOGE', 'POLYGON', 'SOL']) {
      const refused = await call('POST', `/custody/accounts/${account.account_id}/addresses/${chain}`);
      expect([refused.status, refused.body.error.code]).toEqual([400, 'unsupported_blockchain']);
    }
  });
});

describe('sync', () => {
  it('answers what it read, and 500 custody_provider_error with nothing recorded when a chain cannot be read', async () => {
    const account = await newAccount();
    const empty = await call('POST', `/custody/accounts/${account.account_id}/sync`);
    expect([empty.status, empty.body.success, empty.body.message]).toEqual([
      200,
      true,
      '0 addresses read on chain: 0 new deposits found, 0 deposits credited.',
    ]);

    // The ETH endpoint of this deployment answers nothing.
    expect((await call('POST', `/custody/accounts/${account.account_id}/addresses/ETH`)).status).toBe(200);
    const failed = await call('POST', `/custody/accounts/${account.account_id}/sync`);
    expect([failed.status, failed.body.error.code]).toEqual([500, 'custody_provider_error']);
    expect(JSON.stringify(failed.body)).not.toContain('127.0.0.1');
  });
});

describe('balances and transfers', () => {
  it('shows every chain as numbers, moves funds in one entry, and refuses each bad transfer', async () => {
    const from = await newAccount({ name: 'From' });
    const to = await newAccount({ name: 'To' });
    await fund(from.account_id, 'USDTTRC20', '100.5');
    const before = (await listAllEntries(a.tenantId)).length;

    const moved = await call('POST', '/custody/transfer', {
      body: { from_account_id: from.account_id, to_account_id: to.account_id, blockchain: 'TRX', amount: 40.25, reference: 'rebalance' },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      from_account_id: from.account_id,
      to_account_id: to.account_id,
      blockchain: 'TRX',
      amount: 40.25,
      status: 'completed',
      reference: 'rebalance',
    });
    expect((await listAllEntries(a.tenantId)).length).toBe(before + 1);

    const balances = await call('GET', `/custody/accounts/${from.account_id}/balances`);
    expect(balances.status).toBe(200);
    expect(
      balances.body.balances.map((b: { blockchain: string; balance: number; available: number; locked: number }) => [
        b.blockchain,
        b.balance,
        b.available,
        b.locked,
      ]),
    ).toEqual([
      ['ETH', 0, 0, 0],
      ['BSC', 0, 0, 0],
      ['TRX', 60.25, 60.25, 0],
      ['SOL', 0, 0, 0],
    ]);
    const trx = balances.body.balances.find((b: { blockchain: string }) => b.blockchain === 'TRX');
    expect(trx.last_transaction_at).toEqual(expect.any(String));
    // 60.25 x 0.998 = 60.1295, to the cent.
    expect(trx.usd_value).toBe(60.13);
    expect(balances.body.total_usd_value).toBe(trx.usd_value);
    expect((await call('GET', `/custody/accounts/${to.account_id}/balances`)).body.balances[2].available).toBe(40.25);

    const refusals: [Record<string, unknown>, number, string][] = [
      [{ from_account_id: from.account_id, to_account_id: from.account_id, blockchain: 'TRX', amount: 1 }, 400, 'same_account'],
      [{ from_account_id: from.account_id, to_account_id: to.account_id, blockchain: 'TRX', amount: 60.26 }, 400, 'insufficient_funds'],
      [{ from_account_id: from.account_id, to_account_id: to.account_id, blockchain: 'ETH', amount: 1 }, 400, 'insufficient_funds'],
      [{ from_account_id: from.account_id, to_account_id: '6b1f0f8e-1d1c-4e43-9a52-3a0a0c8f5e11', blockchain: 'TRX', amount: 1 }, 404, 'account_not_found'],
      [{ from_account_id: from.account_id, to_account_id: to.account_id, blockchain: 'TRX', amount: -1 }, 400, 'invalid_request'],
      [{ from_account_id: from.account_id, to_account_id: to.account_id, blockchain: 'TRX', amount: '1.0000001' }, 400, 'invalid_request'],
      [{ from_account_id: from.account_id, to_account_id: to.account_id, blockchain: 'DOGE', amount: 1 }, 400, 'unsupported_blockchain'],
      // SOL funds stay at each account's address: a ledger-only move would leave them behind.
      [{ from_account_id: from.account_id, to_account_id: to.account_id, blockchain: 'SOL', amount: 1 }, 400, 'unsupported_blockchain'],
    ];
    for (const [body, status, code] of refusals) {
      const res = await call('POST', '/custody/transfer', { body });
      expect([JSON.stringify(body), res.status, res.body.error?.code]).toEqual([JSON.stringify(body), status, code]);
    }
    const short = await call('POST', '/custody/transfer', {
      body: { from_account_id: from.account_id, to_account_id: to.account_id, blockchain: 'TRX', amount: 61 },
    });
    expect(short.body.error.details).toMatchObject({ available: '60.25', requested: '61', blockchain: 'TRX' });
    // Nothing moved by the refusals.
    expect((await listAllEntries(a.tenantId)).length).toBe(before + 1);
    // The move is in the tenant's transaction history.
    const history = caller((await import('../../../functions/transactions/handler.js')).handler, () => a.bearer);
    const listed = await history('GET', '/transactions/transactions/', { query: { type: 'custody' } });
    expect(listed.body.transactions.map((t: Record<string, unknown>) => [t.id, t.subtype, t.amount, t.currency, t.custom_id, t.order_id])).toEqual([
      [moved.body.transfer_id, 'transfer', '40.250000', 'USDTTRC20', from.account_id, 'rebalance'],
    ]);
  });
});

describe('tenancy and scopes', () => {
  it("answers another tenant 404 account_not_found on every path with A's ids, and a read-only caller 403 insufficient_permissions", async () => {
    const account = await newAccount();
    const other = await newAccount();
    const id = account.account_id;
    for (const [method, path] of [
      ['GET', `/custody/accounts/${id}`],
      ['GET', `/custody/accounts/${id}/balances`],
      ['GET', `/custody/accounts/${id}/addresses`],
      ['POST', `/custody/accounts/${id}/addresses/ETH`],
      ['POST', `/custody/accounts/${id}/sync`],
    ] as const) {
      const res = await callB(method, path);
      expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'account_not_found']);
    }
    const transfer = await callB('POST', '/custody/transfer', { body: { from_account_id: id, to_account_id: other.account_id, blockchain: 'ETH', amount: 1 } });
    expect([transfer.status, transfer.body.error.code]).toEqual([404, 'account_not_found']);
    expect((await callB('GET', '/custody/accounts')).body).toEqual([]);
    expect((await call('GET', '/custody/accounts/not-an-id')).body.error.code).toBe('account_not_found');

    const readOnly = await tenantWithToken('Custody read-only', ['read']);
    const reader = caller(handler, () => readOnly.bearer);
    expect((await reader('GET', '/custody/accounts')).status).toBe(200);
    const refused = await reader('POST', '/custody/accounts', { body: { name: 'No' } });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'insufficient_permissions']);
    // Likewise at the custody-sync and custody-withdrawals Lambdas.
    const notSynced = await reader('POST', `/custody/accounts/${id}/sync`);
    expect([notSynced.status, notSynced.body.error.code]).toEqual([403, 'insufficient_permissions']);
    const notSent = await reader('POST', '/custody/withdraw', { body: { account_id: id, blockchain: 'ETH', amount: 10, destination_address: FACTORY } });
    expect([notSent.status, notSent.body.error.code]).toEqual([403, 'insufficient_permissions']);
    expect((await caller(handler, () => 'nope')('GET', '/custody/accounts')).body.error.code).toBe('authentication_failed');
  });
});
