import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { exportRoutes } from '../../../functions/transactions/export-routes.js';
import { depositAddress } from '../../../shared/chain/btc/p2wsh.js';
import type { Config } from '../../../shared/config/config.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import { transition } from '../../../shared/domain/payments.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { exportsRuntime } from '../../../shared/runtime/exports.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { completePayment } from '../../../shared/usecases/payments/settle.js';
import { runExport } from '../../../shared/usecases/transactions/run-export.js';
import { apiGroupHandlers } from '../../support/api-groups.js';
import { startHotWalletKey, type HotWalletKey } from '../../support/btc-payments.js';
import { parseCsv } from '../../support/csv.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { aDeposit } from '../../support/fixtures/payments.js';
import { InMemoryExportFiles } from '../../support/fakes/transactions.js';
import { caller, putFixedRates, servingEth, tenantWithToken, type Handler } from '../payments/support.js';

/**
 * BTC on every answer, through the real handlers of the API Lambdas on DynamoDB Local, in a deployment that serves
 * Bitcoin (an Esplora URL never dialled, the hot wallet's key on the local KMS server, the local stage's regtest
 * network): the currency
 * list, rates, payment minimum, estimate and creation, withdrawal minimum, limits, available currencies, creation
 * and address check, `/user/me/` and balances, the history, the statistics and an export, each with BTC and its
 * amounts at 8 decimals where the answer spells amounts at the currency's precision.
 *
 * The payment is created through the payments API (its P2WSH deposit address over the KMS key); its deposit and
 * settlement are written through the store as the scanner would.
 */
const REGTEST = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const TESTNET = 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7';
/** A payment of exactly this many BTC (74.0742 USD at 60,000): every one of its 8 places shows. */
const PAID = '0.00123457';
const TXID = bytesToHex(sha256(utf8ToBytes('a BTC deposit')));

let table: TestTable;
let hot: HotWalletKey;
let cfg: Config;
let tenant: { tenantId: string; bearer: string };
const call: Record<string, ReturnType<typeof caller>> = {};
const files = new InMemoryExportFiles();
let paymentId: string;
let paymentAddress: string;

const send = (group: string, method: string, path: string, options: Parameters<ReturnType<typeof caller>>[2] = {}) =>
  (call[group] as ReturnType<typeof caller>)(method, path, options);

/** Creations answer 201, an accepted export 202, the rest 200. */
const CREATED: Readonly<Record<string, number>> = { '/payments/': 201, '/withdrawal/': 201, '/transactions/export/': 202 };

async function ok(group: string, method: string, path: string, options: Parameters<ReturnType<typeof caller>>[2] = {}) {
  const res = await send(group, method, path, options);
  expect([method, path, res.status]).toEqual([method, path, (method === 'POST' && CREATED[path]) || 200]);
  return res.body;
}

beforeAll(async () => {
  table = await startTestTable();
  hot = await startHotWalletKey();
  cfg = servingEth({ HOT_WALLET_KEY_ID: hot.keyId, BTC_API_URL: 'http://127.0.0.1:9/', STAGE: 'local', ALLOW_LOOPBACK_CALLBACKS: 'true' });
  await putFixedRates();
  tenant = await tenantWithToken('Bitcoin surfaces', ['read', 'write', 'admin']);
  for (const [name, handler] of Object.entries(apiGroupHandlers(cfg))) call[name] = caller(handler as unknown as Handler, () => tenant.bearer);
  call.exports = caller(createApi(exportRoutes, { ...exportsRuntime(cfg), files }) as unknown as Handler, () => tenant.bearer);

  await creditAdjustment({ tenant_id: tenant.tenantId, currency: 'BTC', amount: '0.5', reason: 'test funding' }, ledgerRuntime());
  // A BTC payment of PAID, paid in full and settled.
  const made = await ok('payments', 'POST', '/payments/', { body: { price_amount: '74.0742', price_currency: 'USD', currency: 'BTC', order_id: 'btc-1' } });
  paymentId = made.transaction_id as string;
  paymentAddress = made.address as string;
  const p = await dynamoPayments.get(tenant.tenantId, paymentId);
  if (!p) throw new Error('the payment was not stored');
  const now = () => new Date();
  const deposit = { ...aDeposit('btc-1', '0', {}, now()), currency: 'BTC' as const, amount: PAID, amountBase: toBaseUnits(PAID, 8).toString(), txHash: TXID };
  let s = await dynamoPayments.save(p, transition(p, { kind: 'deposit', deposit }, now()), now());
  const confirmed = transition(s, { kind: 'confirmations', byDeposit: { [deposit.id]: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' }, now());
  s = await dynamoPayments.save(s, confirmed, now());
  s = await dynamoPayments.save(s, transition(s, { kind: 'sweep_started' }, now()), now());
  await completePayment(s, TXID, paymentsRuntime(cfg), now());
  // A BTC withdrawal to a regtest address.
  await ok('withdrawals', 'POST', '/withdrawal/', { body: { amount: '0.001', currency: 'BTC', address: REGTEST } });
});

afterAll(async () => {
  await hot?.close();
  await table?.stop();
});

describe('BTC is listed where this deployment serves it', () => {
  it('GET /currencies/ lists BTC as Bitcoin on btc with its bounds, for payments and (funded) withdrawals', async () => {
    const full = await ok('currencies', 'GET', '/currencies/', { query: { full: 'true', min_max: 'true', include_usd: 'true' } });
    expect(full.currencies.find((c: { currency: string }) => c.currency === 'BTC')).toEqual({
      currency: 'BTC',
      name: 'Bitcoin',
      token: 'btc',
      blockchain: 'btc',
      is_popular: true,
      is_stable: false,
      min_amount: '0.0001',
      max_amount: '50',
      min_amount_usd: '6.00',
      max_amount_usd: '3000000.00',
    });
    expect((await ok('currencies', 'GET', '/currencies/')).currencies).toContain('BTC');
    expect((await ok('currencies', 'GET', '/currencies/', { query: { withdrawal: 'true' } })).currencies).toEqual(['BTC']);
  });

  it('GET /rates/ and /rates/BTC/ price BTC', async () => {
    expect((await ok('currencies', 'GET', '/rates/')).rates).toMatchObject({ BTC: '60000' });
    expect(await ok('currencies', 'GET', '/rates/BTC/')).toMatchObject({ currency: 'BTC', rate_usd: '60000' });
  });

  it('the payment minimum and estimate answer BTC on network BTC', async () => {
    expect(await ok('payments', 'GET', '/payments/min-amount/', { query: { currency: 'BTC' } })).toEqual({
      currency: 'BTC',
      min_amount: 0.0001,
      max_amount: 50,
      blockchain: 'BTC',
      token: 'BTC',
      min_amount_usd: 6,
      min_amount_price: 6,
      price_currency: 'USD',
    });
    expect(await ok('payments', 'POST', '/payments/estimate/', { body: { price_amount: '60', price_currency: 'USD', currency: 'BTC' } })).toMatchObject({
      currency: 'BTC',
      blockchain: 'BTC',
      token: 'BTC',
      amount_crypto: '0.001',
      fee_amount: '0.00001',
      merchant_receives: '0.00099',
    });
  });

  it('a BTC payment is made at a regtest P2WSH address and reads its amounts at 8 places', async () => {
    expect(paymentAddress).toBe(depositAddress(tenant.tenantId, paymentId, hot.publicKey, 'local').address);
    expect(paymentAddress).toMatch(/^bcrt1q[02-9ac-hj-np-z]{58}$/);
    expect(await ok('payments', 'GET', `/payments/${paymentId}/`)).toMatchObject({
      blockchain: 'BTC',
      currency: 'BTC',
      token: 'BTC',
      status: 'completed',
      amount_crypto: PAID,
      transaction_hash: TXID,
      payment_history: [{ amount: PAID, transaction_hash: TXID, confirmations: 2 }],
    });
  });

  it('withdrawal answers list BTC with 8-place amounts; its addresses are checked for regtest', async () => {
    expect(await ok('withdrawals', 'POST', '/withdrawal/min-amount/', { body: { currency: 'BTC' } })).toEqual({
      currency: 'BTC',
      min_amount: 0.0005,
      blockchain: 'BTC',
      token: 'BTC',
    });
    expect(await ok('withdrawals', 'POST', '/withdrawal/min-amount/', { body: { blockchain: 'BTC' } })).toEqual({
      min_amount: 0.0005,
      blockchain: 'BTC',
      token: 'BTC',
    });
    const limits = await ok('withdrawals', 'GET', '/withdrawal/limits/');
    expect(limits.currencies.find((c: { currency: string }) => c.currency === 'BTC')).toEqual({
      currency: 'BTC',
      blockchain: 'BTC',
      token: 'BTC',
      min_amount: '0.00050000',
      network_fee: '0.00010000',
      min_transaction_fee: '0.00000200',
    });
    // 0.5 + 0.00123457 paid less the 1 % fee (0.00001235), less the withdrawal's hold (0.001 + fees 0.00011).
    expect(await ok('withdrawals', 'GET', '/withdrawal/available-currencies/')).toEqual({
      currencies: [{ currency: 'BTC', blockchain: 'BTC', token: 'BTC', available: '0.50011222', min_amount: '0.00050000' }],
    });
    expect(await ok('withdrawals', 'POST', '/withdrawal/fee-estimate/', { body: { amount: '0.001', currency: 'BTC', address: REGTEST } })).toMatchObject({
      amount: '0.00100000',
      network_fee: '0.00010000',
      total_deducted: '0.00111000',
      min_amount: '0.00050000',
    });
    expect(await ok('withdrawals', 'POST', '/withdrawal/validate-address/', { body: { address: REGTEST, currency: 'BTC' } })).toMatchObject({
      is_valid: true,
      type: 'BTC',
      blockchain: 'BTC',
    });
    expect(await ok('withdrawals', 'POST', '/withdrawal/validate-address/', { body: { address: TESTNET, blockchain: 'BTC' } })).toMatchObject({
      is_valid: false,
      error_message: expect.stringMatching(/Bitcoin testnet address; this gateway pays Bitcoin regtest addresses/),
    });
    const wrong = await send('withdrawals', 'POST', '/withdrawal/', { body: { amount: '0.001', currency: 'BTC', address: TESTNET } });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.details.expected_format]).toEqual([
      400,
      'invalid_address',
      'Bitcoin regtest P2PKH, P2SH, P2WPKH, P2WSH or P2TR address (m.../n..., 2..., bcrt1q... or bcrt1p...)',
    ]);
    const small = await send('withdrawals', 'POST', '/withdrawal/', { body: { amount: '0.0001', currency: 'BTC', address: REGTEST } });
    expect([small.status, small.body.error]).toEqual([
      422,
      { code: 'below_minimum', message: 'The minimum withdrawal is 0.0005 BTC.', details: { minimum: '0.0005', requested: '0.0001', currency: 'BTC' } },
    ]);
  });

  it('/user/me/ counts BTC among the active currencies and the volume; balances read at 8 places', async () => {
    expect((await ok('user', 'GET', '/user/me/')).statistics).toEqual({
      total_payments: 1,
      total_withdrawals: 1,
      total_volume_usd: '74.07',
      active_currencies: 1,
    });
    expect((await ok('user', 'GET', '/user/balances/')).account).toEqual({
      BTC: { amount: '0.50122222', pending_amount: '0.00000000', available_balance: '0.50011222', locked_amount: '0.00111000' },
    });
    const history = await ok('user', 'GET', '/user/balances/history/', { query: { currency: 'BTC' } });
    expect(history.results.map((r: { type: string; amount: string }) => [r.type, r.amount])).toEqual([
      ['withdrawal_hold', '-0.00111000'],
      ['payment', '0.00122222'],
      ['adjustment', '0.50000000'],
    ]);
  });

  it('the history and the statistics carry the BTC amounts exactly', async () => {
    const list = await ok('transactions', 'GET', '/transactions/transactions/', { query: { currency: 'BTC' } });
    expect(list.transactions.map((t: Record<string, string>) => [t.type, t.currency, t.amount, t.fee, t.net_amount, t.transaction_hash])).toEqual([
      ['withdrawal', 'BTC', '0.00100000', '0.00011000', '0.00111000', null],
      ['payment', 'BTC', PAID, '0.00001235', '0.00122222', TXID],
      ['adjustment', 'BTC', '0.50000000', '0.00000000', '0.50000000', null],
    ]);
    const stats = await ok('transactions', 'GET', '/transactions/stats/');
    expect(stats.volume).toEqual({ BTC: { payment: { amount: PAID, fees: '0.00001235' }, adjustment: { amount: '0.5', fees: '0' } } });
    expect(stats.fees).toEqual({ BTC: '0.00001235' });
    expect(stats.counts.payment).toEqual({ total: 1, by_status: { completed: 1 } });
  });

  it('an export of the BTC history writes the same 8-place amounts', async () => {
    const accepted = await ok('exports', 'POST', '/transactions/export/', { body: { format: 'csv', currency: 'BTC' } });
    const done = await runExport({ tenantId: tenant.tenantId, exportId: accepted.export_id as string }, { ...exportsRuntime(cfg), files });
    expect(done?.status).toBe('completed');
    const [file] = [...files.files.values()];
    const [header, ...rows] = parseCsv(file?.body ?? '');
    const column = (name: string) => (header ?? []).indexOf(name);
    expect(rows.map((r) => [r[column('type')], r[column('currency')], r[column('amount')], r[column('fee')], r[column('net_amount')]])).toEqual([
      ['withdrawal', 'BTC', '0.00100000', '0.00011000', '0.00111000'],
      ['payment', 'BTC', PAID, '0.00001235', '0.00122222'],
      ['adjustment', 'BTC', '0.50000000', '0.00000000', '0.50000000'],
    ]);
  });
});
