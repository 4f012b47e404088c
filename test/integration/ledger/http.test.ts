import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { currencyRoutes } from '../../../functions/currencies/routes.js';
import { config } from '../../../shared/config/config.js';
import { balanceRoutes } from '../../../functions/user/balances-routes.js';
import { InsufficientBalanceError } from '../../../shared/domain/errors.js';
import { FEES, MAIN, pocket } from '../../../shared/domain/ledger.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { parseJson } from '../../../shared/http/json.js';
import { postEntry } from '../../../shared/store/ledger.js';
import { clientAuthFrom, issueToken } from '../../../shared/usecases/auth/issue-token.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { debitAdjustment } from '../../../shared/usecases/ledger/debit-adjustment.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { apiEvent, lambdaContext } from '../../unit/http/event.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { authRuntime } from '../../../shared/runtime/auth.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { currenciesRuntime } from '../../../shared/runtime/currencies.js';
import { userRuntime } from '../../../shared/runtime/user.js';
import type { BalancesPorts } from '../../../shared/usecases/balances/ports.js';
import type { ListCurrenciesDeps } from '../../../shared/usecases/currencies/ports.js';
import { CHAIN_NETWORKS, serving } from '../../support/fakes/payments.js';

/**
 * Balances, history, fees, currencies and rates through the real pipeline (lossless JSON in and out)
 * against DynamoDB Local. Amounts must come back exactly as they went in.
 */
let table: TestTable;
let tenantId: string;
let reader: string;
let admin: string;

let api: ReturnType<typeof createApi>;

async function call(method: string, path: string, options: { token?: string; query?: Record<string, string>; body?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? reader}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = (await api(apiEvent(method, path, { headers, query: options.query, body: options.body }), lambdaContext)) as APIGatewayProxyStructuredResultV2 & {
    body: string;
  };
  return {
    status: res.statusCode,
    text: res.body,
    body: JSON.parse(res.body) as Record<string, unknown> & { error?: { code: string; details: Record<string, unknown> } },
  };
}

beforeAll(async () => {
  table = await startTestTable();
  // The offline reference prices, whatever the environment says.
  api = createApi<BalancesPorts & ListCurrenciesDeps>([...balanceRoutes, ...currencyRoutes], {
    ...currenciesRuntime({ ...config(), RATES_SOURCE: 'reference' }),
    // A deployment serving every network a chain adapter exists for.
    served: serving(CHAIN_NETWORKS),
    ...userRuntime(),
  });
  const made = await createTenant({ name: 'Ledger HTTP', scopes: ['read', 'write', 'admin'] }, tenantsRuntime());
  tenantId = made.tenant.id;
  const auth = clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret });
  reader = (await issueToken({ grant_type: 'client_credentials', scope: 'read write' }, auth, new Date(), authRuntime())).access_token;
  admin = (await issueToken({ grant_type: 'client_credentials', scope: 'read write admin' }, auth, new Date(), authRuntime())).access_token;
});

afterAll(async () => {
  await table.stop();
});

describe('exact amounts end to end', () => {
  it('0.1 + 0.2 sent as JSON numbers is 0.3 in the balance, and 18-decimal amounts survive exactly', async () => {
    // Request bodies parse losslessly: the JSON numbers reach the use case as their exact text.
    const a = parseJson('{"amount": 0.1}') as { amount: string };
    const b = parseJson('{"amount": 0.2}') as { amount: string };
    await creditAdjustment({ tenant_id: tenantId, currency: 'USDTTRC20', amount: a.amount, reason: 'test credit' }, ledgerRuntime());
    await creditAdjustment({ tenant_id: tenantId, currency: 'USDTTRC20', amount: b.amount, reason: 'test credit' }, ledgerRuntime());
    const dust = parseJson('{"amount": 0.123456789012345678}') as { amount: string };
    await creditAdjustment({ tenant_id: tenantId, currency: 'DAIERC20', amount: dust.amount, reason: 'dust' }, ledgerRuntime());
    await creditAdjustment({ tenant_id: tenantId, currency: 'DAIERC20', amount: '1000000000000.000000000000000001', reason: 'whale' }, ledgerRuntime());

    const balances = await call('GET', '/user/balances/');
    expect(balances.status).toBe(200);
    expect(balances.text).toContain('"USDTTRC20":{"amount":"0.300000","pending_amount":"0.000000","available_balance":"0.300000","locked_amount":"0.000000"}');
    expect(balances.text).toContain(
      '"DAIERC20":{"amount":"1000000000000.123456789012345679","pending_amount":"0.00000000","available_balance":"1000000000000.123456789012345679","locked_amount":"0.00000000"}',
    );
    expect(balances.body).toMatchObject({ sub_accounts: {}, statistics: { currencies_count: 2, subaccounts_count: 0 } });
  });

  it('debits refuse overdrafts and the history lists the journal with counts', async () => {
    await expect(
      debitAdjustment({ tenant_id: tenantId, currency: 'USDTTRC20', amount: '0.300001', reason: 'too much' }, ledgerRuntime()),
    ).rejects.toBeInstanceOf(InsufficientBalanceError);
    const result = await debitAdjustment(
      { tenant_id: tenantId, currency: 'USDTTRC20', amount: '0.1', reason: 'correction', operator: 'ops@example' },
      ledgerRuntime(),
    );
    expect(result.balance).toEqual({ amount: '0.2', pending: '0', locked: '0', total: '0.2' });

    const all = await call('GET', '/user/balances/history/');
    expect(all.body).toMatchObject({ count: 5, limit: 50, offset: 0 });
    const usdt = await call('GET', '/user/balances/history/', { query: { currency: 'USDTTRC20', limit: '2' } });
    expect(usdt.body.count).toBe(3);
    const results = usdt.body.results as { amount: string; description: string; type: string; reference: unknown }[];
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({
      amount: '-0.100000',
      description: 'correction',
      type: 'adjustment',
      reference: { type: 'operator', id: 'ops@example' },
    });
    const page2 = await call('GET', '/user/balances/history/', { query: { currency: 'USDTTRC20', limit: '2', offset: '2' } });
    expect((page2.body.results as { amount: string }[]).map((r) => r.amount)).toEqual(['0.100000']);
    const bad = await call('GET', '/user/balances/history/', { query: { limit: '101', type: 'nonsense' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error?.details ?? {}).sort()).toEqual(['limit', 'type']);
  });

  it('platform fees are summed over shards and need admin', async () => {
    await creditAdjustment({ tenant_id: tenantId, currency: 'USDTTRC20', amount: '0.300001', reason: 'to pay fees' }, ledgerRuntime());
    for (const amount of ['0.1', '0.2', '0.000001']) {
      await postEntry({ tenantId, entry: { type: 'fee', currency: 'USDTTRC20', legs: [{ from: pocket(MAIN), to: pocket(FEES), amount }] } });
    }
    const denied = await call('GET', '/user/fees/');
    expect([denied.status, denied.body.error?.code]).toEqual([403, 'permission_denied']);
    const fees = await call('GET', '/user/fees/', { token: admin });
    expect(fees.status).toBe(200);
    expect(fees.body.fees).toMatchObject({ USDTTRC20: { platform_fees: '0.300001', network_fees: '0.000000' } });
  });

  it('currencies: withdrawal=true lists funded currencies; include_usd needs min_max', async () => {
    const funded = await call('GET', '/currencies/', { query: { withdrawal: 'true' } });
    expect(funded.body).toEqual({ currencies: ['DAIERC20', 'USDTTRC20'] });
    await debitAdjustment({ tenant_id: tenantId, currency: 'USDTTRC20', amount: '0.2', reason: 'empty it' }, ledgerRuntime());
    expect((await call('GET', '/currencies/', { query: { withdrawal: 'true' } })).body).toEqual({ currencies: ['DAIERC20'] });
    const refused = await call('GET', '/currencies/', { query: { include_usd: 'true' } });
    expect([refused.status, refused.body.error?.code]).toEqual([400, 'invalid_request']);
    const full = await call('GET', '/currencies/', { query: { full: 'true', min_max: 'true', include_usd: 'true' } });
    expect((full.body.currencies as { currency: string; min_amount_usd: string }[]).find((c) => c.currency === 'ETH')?.min_amount_usd).toMatch(/^\d+\.\d{2}$/);
  });
});

describe('rates endpoints', () => {
  it('variant A, variant B in JSON numbers, single rate and its 404', async () => {
    const all = await call('GET', '/rates/');
    expect(all.body).toMatchObject({ base_currency: 'USD' });
    expect(Object.keys(all.body.rates as object)).toContain('USDTERC20');

    const b = await call('GET', '/rates/', { query: { currency_to: 'USDTERC20', amount: '100.10', full: 'true', fee_percentage: '0' } });
    expect(b.status).toBe(200);
    expect(b.text).toMatch(/"amount":100\.1,/);
    expect(b.text).toMatch(/"estimated_amount":\d+(\.\d+)?,/);
    expect(b.text).toMatch(/"fee_amount":0,/);

    const one = await call('GET', '/rates/ETH/');
    expect(one.body).toMatchObject({ currency: 'ETH' });
    const missing = await call('GET', '/rates/DOGE/');
    expect([missing.status, missing.body.error?.code, missing.body.error?.details]).toEqual([404, 'not_found', { currency: 'DOGE' }]);
  });

  it('calculate: fee, expiry, 422 invalid_currency and 400 for a zero amount', async () => {
    const calc = await call('POST', '/rates/calculate/', { body: '{"amount": 100.00, "from_currency": "USD", "to_currency": "USDTERC20"}' });
    expect(calc.status).toBe(200);
    expect(calc.body).toMatchObject({ from_amount: '100', fee_currency: 'USDTERC20' });
    expect(Date.parse(calc.body.rate_expires_at as string) - Date.parse(calc.body.calculation_timestamp as string)).toBe(300_000);
    const bad = await call('POST', '/rates/calculate/', { body: '{"amount": 1, "from_currency": "USD", "to_currency": "XRP"}' });
    expect([bad.status, bad.body.error?.code, bad.body.error?.details.currency]).toEqual([422, 'invalid_currency', 'XRP']);
    const zero = await call('POST', '/rates/calculate/', { body: '{"amount": 0, "from_currency": "USD", "to_currency": "ETH"}' });
    expect([zero.status, zero.body.error?.code]).toEqual([400, 'invalid_request']);
  });
});
