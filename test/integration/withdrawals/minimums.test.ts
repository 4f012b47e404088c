import { currencyRoutes } from '../../../functions/currencies/routes.js';
import type { Config } from '../../../shared/config/config.js';
import { parseConfig } from '../../../shared/config/config.js';
import type { NetworkCode, ServedNetworks } from '../../../shared/domain/currencies.js';
import { CURRENCIES, CURRENCY_LIST, findCurrency, NETWORK_CODES } from '../../../shared/domain/currencies.js';
import { sub } from '../../../shared/domain/money.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { currenciesRuntime, servedNetworks } from '../../../shared/runtime/currencies.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { withdrawalsApi } from '../../support/withdrawals.js';
import type { Answer, Handler } from '../payments/support.js';
import { caller, EVERY_TOKEN_CONTRACT, putFixedRates, tenantWithToken } from '../payments/support.js';

/**
 * Minimums are the ones applied, on a deployment configured as the local stack is (every EVM network, TRON and
 * Solana reached, a forwarder factory on each, the hot wallet's key, every token's contract, Solana's fee payer):
 * - `POST /withdrawal/min-amount/` variant B answers for every network this deployment sends withdrawals on, the
 *   token defaulting to USDT (custody's USDT on Solana included), and refuses a network it sends nothing on as such;
 * - the minimum `GET /currencies/?withdrawal=true&min_max=true` shows is the one `POST /withdrawal/` and the
 *   estimate apply: accepted at it, refused one unit of its last place below, with that figure;
 * - `GET /rates/` lists exactly the currencies offered (no BTC: no Bitcoin chain is served).
 */
const EVM_DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON_DEST = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const FACTORY = '0x1111111111111111111111111111111111111111';
const EVM_NETWORKS: readonly NetworkCode[] = ['ETH', 'POLYGON', 'BSC', 'ARB', 'BASE', 'OPTIMISM'];

let table: TestTable;
let cfg: Config;
let served: ServedNetworks;
let call: (method: string, path: string, options?: { body?: unknown; query?: Record<string, string> }) => Promise<Answer>;

beforeAll(async () => {
  table = await startTestTable();
  cfg = parseConfig({
    ...process.env,
    EVM_RPC_URLS: JSON.stringify(Object.fromEntries(EVM_NETWORKS.map((n) => [n, 'http://127.0.0.1:9/']))),
    FORWARDER_FACTORIES: JSON.stringify({ ...Object.fromEntries(EVM_NETWORKS.map((n) => [n, FACTORY])), TRX: TRON_DEST }),
    FORWARDER_IMPLEMENTATION_TRX: TRON_DEST,
    TRON_API_URL: 'http://127.0.0.1:9/',
    SOLANA_RPC_URL: 'http://127.0.0.1:9/',
    SOLANA_FEE_PAYER_KEY_ID: 'fee-payer-key',
    HOT_WALLET_KEY_ID: 'hot-wallet-key',
    TOKEN_CONTRACTS: EVERY_TOKEN_CONTRACT,
  });
  served = servedNetworks(cfg);
  // The withdrawals Lambda sending on what this configuration serves (no TRON endpoint dialled for new addresses).
  const withdrawals = withdrawalsApi(served);
  const currencies = createApi(currencyRoutes, currenciesRuntime(cfg));
  const handler: Handler = (event, context) => (event.rawPath.startsWith('/withdrawal') ? withdrawals : currencies)(event, context);
  await putFixedRates();
  const tenant = await tenantWithToken('Minimums');
  call = caller(handler, () => tenant.bearer);
  for (const currency of CURRENCY_LIST) {
    await creditAdjustment({ tenant_id: tenant.tenantId, currency: currency.code, amount: '1000', reason: 'test funding' }, ledgerRuntime());
  }
});

afterAll(async () => {
  await table?.stop();
});

const minAmount = (body: Record<string, string>) => call('POST', '/withdrawal/min-amount/', { body });

describe('POST /withdrawal/min-amount/ variant B', () => {
  /** What each network answers without a token: [status, token, min_amount] or [status, error code]. */
  const EXPECTED: Readonly<Record<NetworkCode, readonly unknown[]>> = {
    ETH: [200, 'USDT', 10],
    POLYGON: [200, 'USDT', 1],
    BSC: [200, 'USDT', 5],
    ARB: [200, 'USDT', 5],
    TRX: [200, 'USDT', 1],
    // Sent from custody accounts only (the main account's funds are never at a Solana address), at custody's minimum.
    SOL: [200, 'USDT', 1],
    // Reached, but no catalogue currency is on them: nothing is sent there.
    BASE: [400, 'unsupported_blockchain'],
    OPTIMISM: [400, 'unsupported_blockchain'],
    BTC: [400, 'unsupported_blockchain'],
  };

  it.each(NETWORK_CODES.map((n) => [n] as const))('%s without a token', async (network) => {
    const answer = await minAmount({ blockchain: network });
    const seen = answer.status === 200 ? [200, answer.body.token, answer.body.min_amount] : [answer.status, answer.body.error.code];
    expect([network, ...seen]).toEqual([network, ...(EXPECTED[network] ?? [])]);
    if (answer.status === 200) expect(answer.body.blockchain).toBe(network);
    else expect(answer.body.error.message).not.toMatch(/token/i);
  });

  it('answers every network this deployment sends withdrawals on, and lists exactly those when refusing', async () => {
    const sending = NETWORK_CODES.filter((n) => EXPECTED[n][0] === 200);
    const refused = await minAmount({ blockchain: 'BASE' });
    expect(refused.body.error.details.supported_blockchains).toEqual(sending);
    // Every network in the served set with a currency sent on it answers: the main account's, and custody's SOL.
    const withCurrency = [...served.withdrawals].filter((n) => CURRENCY_LIST.some((c) => c.network === n));
    expect(new Set(withCurrency)).toEqual(new Set(sending));
    for (const network of sending) expect([network, (await minAmount({ blockchain: network })).status]).toEqual([network, 200]);
  });

  it('with a token, answers the minimum variant A and the withdrawal limits give; a token not sent is unsupported_token', async () => {
    const limits = await call('GET', '/withdrawal/limits/');
    expect(limits.status).toBe(200);
    for (const row of limits.body.currencies as { currency: string; blockchain: string; token: string; min_amount: string }[]) {
      const byPair = await minAmount({ blockchain: row.blockchain, token: row.token });
      const byCode = await minAmount({ currency: row.currency });
      expect([row.currency, byPair.status, String(byPair.body.min_amount), String(byCode.body.min_amount)]).toEqual([
        row.currency,
        200,
        String(Number(row.min_amount)),
        String(Number(row.min_amount)),
      ]);
    }
    const sol = await minAmount({ currency: 'USDTSOL' });
    expect([sol.status, sol.body]).toEqual([200, { currency: 'USDTSOL', min_amount: 1, blockchain: 'SOL', token: 'USDT' }]);
    const usdc = await minAmount({ blockchain: 'BASE', token: 'USDC' });
    expect([usdc.status, usdc.body.error.code, usdc.body.error.details]).toEqual([
      400,
      'unsupported_token',
      { blockchain: 'BASE', token: 'USDC', supported_tokens: [] },
    ]);
  });
});

describe('GET /currencies/?withdrawal=true&min_max=true', () => {
  it('shows for each withdrawal currency the minimum POST /withdrawal/ and the estimate apply', async () => {
    const listed = await call('GET', '/currencies/', { query: { withdrawal: 'true', min_max: 'true', include_usd: 'true' } });
    expect(listed.status).toBe(200);
    const rows = listed.body.currencies as { currency: string; min_amount: string; min_amount_usd: string }[];
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      const currency = findCurrency(row.currency) ?? CURRENCIES.USDTERC20;
      const address = currency.family === 'tron' ? TRON_DEST : EVM_DEST;
      const below = sub(row.min_amount, `1e-${currency.displayPrecision}`);

      const estimate = await call('POST', '/withdrawal/estimate/', { body: { amount: row.min_amount, currency: row.currency, final_amount: true } });
      const estimateBelow = await call('POST', '/withdrawal/estimate/', { body: { amount: below, currency: row.currency, final_amount: true } });
      expect([row.currency, estimate.status, estimateBelow.status, estimateBelow.body.error?.details]).toEqual([
        row.currency,
        200,
        400,
        { minimum: row.min_amount, currency: row.currency },
      ]);

      const refused = await call('POST', '/withdrawal/', { body: { amount: below, currency: row.currency, address } });
      expect([row.currency, refused.status, refused.body.error?.code, refused.body.error?.details]).toEqual([
        row.currency,
        422,
        'below_minimum',
        { minimum: row.min_amount, requested: below, currency: row.currency },
      ]);
      const made = await call('POST', '/withdrawal/', { body: { amount: row.min_amount, currency: row.currency, address } });
      expect([row.currency, made.status, made.body.status]).toEqual([row.currency, 201, 'pending']);
    }
  });
});

describe('GET /rates/', () => {
  it('lists exactly the currencies offered: taken for payments or sent for withdrawals, no BTC', async () => {
    const rates = await call('GET', '/rates/');
    expect(rates.status).toBe(200);
    const payable = (await call('GET', '/currencies/')).body.currencies as string[];
    const sendable = ((await call('GET', '/withdrawal/limits/')).body.currencies as { currency: string }[]).map((c) => c.currency);
    const offered = CURRENCY_LIST.map((c) => c.code).filter((code) => payable.includes(code) || sendable.includes(code));
    expect(Object.keys(rates.body.rates)).toEqual(offered);
    expect(offered).not.toContain('BTC');
    expect(offered).toContain('USDTERC20');
  });
});
