import type * as RatesRefresher from '../../../functions/rates-refresher/handler.js';
import { parseConfig, resetConfig } from '../../../shared/config/config.js';
import { CUSTODY_CURRENCIES } from '../../../shared/domain/custody.js';
import { CURRENCY_LIST } from '../../../shared/domain/currencies.js';
import { isPositive, mul, toFixed } from '../../../shared/domain/money.js';
import { usdRate } from '../../../shared/domain/rates.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { ratesRuntime } from '../../../shared/runtime/rates.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { currentRates, usdRatesOf } from '../../../shared/usecases/rates/current-rates.js';
import { custodyApi } from '../../support/custody.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, tenantWithToken } from '../payments/support.js';

/**
 * Every currency the gateway holds is valued: after one run of the rates-refresher (the deployed Lambda, reference
 * market data, DynamoDB Local), the current-rates read every use case values with gives a USD rate for each currency
 * enabled anywhere (payments, withdrawals or custody: every network, Solana and TRON and each EVM chain), and a custody
 * balance of USDT on Solana shows its USD value.
 */
let table: TestTable;
let handler: typeof RatesRefresher.handler;
let refreshedAt: Date;

const custodyHeld = new Set<string>(Object.values(CUSTODY_CURRENCIES));
const ENABLED_ANYWHERE = CURRENCY_LIST.filter((c) => c.enabled.payments || c.enabled.withdrawals || custodyHeld.has(c.code));

beforeAll(async () => {
  table = await startTestTable();
  process.env.RATES_SOURCE = 'reference';
  resetConfig();
  ({ handler } = await import('../../../functions/rates-refresher/handler.js'));
  refreshedAt = new Date();
  await handler({ time: refreshedAt.toISOString() });
});

afterAll(async () => {
  delete process.env.RATES_SOURCE;
  resetConfig();
  await table?.stop();
});

describe('after one refresh, the current-rates read values', () => {
  it('every network of the catalogue is among the currencies checked', () => {
    expect(new Set(ENABLED_ANYWHERE.map((c) => c.network))).toEqual(new Set(['ETH', 'POLYGON', 'BSC', 'ARB', 'TRX', 'BTC', 'SOL']));
    expect(ENABLED_ANYWHERE.map((c) => c.code)).toContain('USDTSOL');
  });

  it.each(ENABLED_ANYWHERE.map((c) => [c.code, c.network] as const))('%s (%s) at a non-zero USD rate', async (code) => {
    const rates = usdRatesOf(await currentRates(ratesRuntime(), new Date()));
    const rate = usdRate(code, rates);
    expect([code, rate !== undefined && isPositive(rate)]).toEqual([code, true]);
  });
});

describe('custody balances', () => {
  it('USDT on Solana has its usd_value, counted in the account total (balances and detail)', async () => {
    const tenant = await tenantWithToken('Valued custody');
    const call = caller(custodyApi(parseConfig({ ...process.env, SOLANA_RPC_URL: undefined })), () => tenant.bearer);
    const created = await call('POST', '/custody/accounts', { body: { name: 'Solana treasury' } });
    expect(created.status).toBe(201);
    const accountId = created.body.account_id as string;
    for (const [currency, amount] of [
      ['USDTSOL', '25.5'],
      ['USDTTRC20', '10'],
    ] as const) {
      await creditAdjustment({ tenant_id: tenant.tenantId, account: `custody:${accountId}`, currency, amount, reason: 'test funding' }, ledgerRuntime());
    }
    const rates = usdRatesOf(await currentRates(ratesRuntime(), new Date()));
    const usd = (code: string, amount: string) => Number(toFixed(mul(amount, usdRate(code, rates) ?? '0'), 2, 'half-up'));
    const sol = usd('USDTSOL', '25.5');
    expect(sol).toBeGreaterThan(25);

    const balances = await call('GET', `/custody/accounts/${accountId}/balances`);
    expect(balances.status).toBe(200);
    const row = (chain: string) => balances.body.balances.find((b: { blockchain: string }) => b.blockchain === chain);
    expect([row('SOL').balance, row('SOL').usd_value]).toEqual([25.5, sol]);
    expect(balances.body.total_usd_value).toBeCloseTo(sol + usd('USDTTRC20', '10'), 2);

    const detail = await call('GET', `/custody/accounts/${accountId}`);
    const summary = detail.body.balances_summary.blockchains.find((b: { blockchain: string }) => b.blockchain === 'SOL');
    expect([summary.balance, summary.usd_value]).toEqual([25.5, sol]);
    expect(detail.body.balances_summary.total_usd).toBe(balances.body.total_usd_value);
  });
});
