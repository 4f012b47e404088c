import { currencyRoutes } from '../../../functions/currencies/routes.js';
import { paymentRoutes } from '../../../functions/payments/routes.js';
import { withdrawalRoutes } from '../../../functions/withdrawals/routes.js';
import { parseConfig } from '../../../shared/config/config.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { currenciesRuntime } from '../../../shared/runtime/currencies.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { withdrawalsRuntime } from '../../../shared/runtime/withdrawals.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import type { Handler } from '../payments/support.js';
import { caller, EVERY_TOKEN_CONTRACT, putFixedRates, tenantWithToken } from '../payments/support.js';

/**
 * A deployment configured with a subset of the catalogue's networks (ETH and TRON, as the integration stack has)
 * offers and accepts only their currencies: a BSC currency is neither listed nor taken, for payments or
 * withdrawals, so nothing is accepted and left waiting. The chain endpoints are never dialled by these calls.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON_FACTORY = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
let table: TestTable;
let call: ReturnType<typeof caller>;
let tenantId: string;
let handler: Handler;

beforeAll(async () => {
  table = await startTestTable();
  const cfg = parseConfig({
    ...process.env,
    EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/' }),
    FORWARDER_FACTORIES: JSON.stringify({ ETH: '0x1111111111111111111111111111111111111111', TRX: TRON_FACTORY }),
    FORWARDER_IMPLEMENTATION_TRX: TRON_FACTORY,
    TRON_API_URL: 'http://127.0.0.1:9/',
    HOT_WALLET_KEY_ID: 'hot-wallet-key',
    TOKEN_CONTRACTS: EVERY_TOKEN_CONTRACT,
  });
  // The three Lambdas of one deployment, each wired from the same configuration.
  const lambdas = {
    payments: createApi(paymentRoutes, paymentsRuntime(cfg)),
    withdrawals: createApi(withdrawalRoutes, withdrawalsRuntime(cfg)),
    currencies: createApi(currencyRoutes, currenciesRuntime(cfg)),
  };
  handler = (event, context) =>
    (event.rawPath.startsWith('/payments') ? lambdas.payments : event.rawPath.startsWith('/withdrawal') ? lambdas.withdrawals : lambdas.currencies)(
      event,
      context,
    );
  await putFixedRates();
  const t = await tenantWithToken('Served networks');
  tenantId = t.tenantId;
  call = caller(handler, () => t.bearer);
  for (const currency of ['USDTERC20', 'USDTBSC']) {
    await creditAdjustment({ tenant_id: tenantId, currency, amount: '100', reason: 'test funding' }, ledgerRuntime());
  }
});

afterAll(async () => {
  await table?.stop();
});

describe('a deployment serving ETH and TRON', () => {
  it('GET /currencies/ lists neither USDTBSC nor the other unserved currencies, in every form', async () => {
    const unserved = ['USDTPOLYGON', 'USDTBSC', 'USDTARB', 'MATIC', 'BTC'];
    const simple = await call('GET', '/currencies/');
    expect(simple.status).toBe(200);
    expect(simple.body.currencies).toContain('USDTERC20');
    expect(simple.body.currencies).toContain('USDTTRC20');
    for (const code of unserved) expect(simple.body.currencies).not.toContain(code);
    const full = await call('GET', '/currencies/', { query: { full: 'true', min_max: 'true' } });
    expect(full.body.currencies.map((c: { currency: string }) => c.currency)).toEqual(simple.body.currencies);
    // Funded in USDTBSC and USDTERC20, the tenant can withdraw only the one sent here.
    expect((await call('GET', '/currencies/', { query: { withdrawal: 'true' } })).body).toEqual({ currencies: ['USDTERC20'] });
  });

  it('POST /payments/ refuses USDTBSC as it refuses an unknown currency, and takes USDTERC20', async () => {
    const bsc = await call('POST', '/payments/', { body: { amount: '25', currency: 'USDTBSC' } });
    const unknown = await call('POST', '/payments/', { body: { amount: '25', currency: 'DOGE' } });
    expect([bsc.status, bsc.body.error.code, bsc.body.error.details.currency]).toEqual([unknown.status, 'invalid_currency', 'USDTBSC']);
    expect(bsc.body.error.details.supported_currencies).toEqual(unknown.body.error.details.supported_currencies);
    expect(bsc.body.error.details.supported_currencies).not.toContain('USDTBSC');
    const min = await call('GET', '/payments/min-amount/', { query: { currency: 'USDTBSC' } });
    expect([min.status, min.body.error.code]).toEqual([unknown.status, 'invalid_currency']);
    expect((await call('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20' } })).status).toBe(201);
  });

  it('POST /withdrawal/ refuses USDTBSC with a 4xx and holds nothing; USDTERC20 is taken', async () => {
    const bsc = await call('POST', '/withdrawal/', { body: { amount: '20', currency: 'USDTBSC', address: DEST } });
    const unknown = await call('POST', '/withdrawal/', { body: { amount: '20', currency: 'DOGE', address: DEST } });
    expect([bsc.status, bsc.body.error.code, bsc.body.error.details.currency]).toEqual([unknown.status, 'invalid_currency', 'USDTBSC']);
    expect(bsc.body.error.details.supported_currencies).not.toContain('USDTBSC');
    expect(await getBalance(tenantId, 'main', 'USDTBSC')).toMatchObject({ amount: '100' });
    for (const [path, body] of [
      ['/withdrawal/estimate/', { amount: '20', currency: 'USDTBSC' }],
      ['/withdrawal/fee-estimate/', { amount: '20', currency: 'USDTBSC' }],
      ['/withdrawal/min-amount/', { currency: 'USDTBSC' }],
    ] as const) {
      const answer = await call('POST', path, { body });
      expect([path, answer.status, answer.body.error.code]).toEqual([path, 400, 'invalid_currency']);
    }
    // Nothing is sent on BSC here: without a token the blockchain is refused, with one the token.
    const variantB = await call('POST', '/withdrawal/min-amount/', { body: { blockchain: 'BSC' } });
    expect([variantB.status, variantB.body.error.code]).toEqual([400, 'unsupported_blockchain']);
    const variantBToken = await call('POST', '/withdrawal/min-amount/', { body: { blockchain: 'BSC', token: 'USDT' } });
    expect([variantBToken.status, variantBToken.body.error.code]).toEqual([400, 'unsupported_token']);
    const limits = await call('GET', '/withdrawal/limits/');
    expect(limits.body.currencies.map((c: { currency: string }) => c.currency)).not.toContain('USDTBSC');
    const ok = await call('POST', '/withdrawal/', { body: { amount: '20', currency: 'USDTERC20', address: DEST } });
    expect([ok.status, ok.body.status]).toEqual([201, 'pending']);
  });
});
