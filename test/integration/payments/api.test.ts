import { tronAddressFromBytes } from '../../../shared/domain/chain-addresses.js';
import { updateTenantSettings } from '../../../shared/store/tenants.js';
import { parseConfig } from '../../../shared/config/config.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { paymentRoutes } from '../../../functions/payments/routes.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, EVERY_TOKEN_CONTRACT, putFixedRates, tenantWithToken } from './support.js';

/**
 * The payments API against DynamoDB Local: every create body form, validation, limits, idempotency, lists
 * (both variants), retrieval, update, cancel, status, estimate, min-amount, and tenant isolation.
 */
const FACTORY = '0x1111111111111111111111111111111111111111';
let table: TestTable;
let a: { tenantId: string; bearer: string };
let b: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let callB: ReturnType<typeof caller>;
let handler: ReturnType<typeof api>;

/** The payments Lambda as a deployment with these settings wires it. */
const api = (env: Record<string, string>) =>
  createApi(paymentRoutes, paymentsRuntime(parseConfig({ ...process.env, ALLOW_LOOPBACK_CALLBACKS: 'true', ...CHAINS, ...env })));
/** The chains' endpoints (never dialled by the API): with a factory, a network is served. */
const CHAINS = {
  EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/' }),
  TRON_API_URL: 'http://127.0.0.1:9/',
  TOKEN_CONTRACTS: EVERY_TOKEN_CONTRACT,
};

beforeAll(async () => {
  table = await startTestTable();
  handler = api({ FORWARDER_FACTORIES: JSON.stringify({ ETH: FACTORY }) });
  await putFixedRates();
  a = await tenantWithToken('Payments A');
  b = await tenantWithToken('Payments B');
  call = caller(handler, () => a.bearer);
  callB = caller(handler, () => b.bearer);
});

afterAll(async () => {
  await table?.stop();
});

describe('POST /payments/', () => {
  it('creates from amount + currency: exact, rounded up, fee paid by the merchant by default', async () => {
    const res = await call('POST', '/payments/', { body: '{"amount": 25.10, "currency": "USDTERC20", "order_id": "o-1"}' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      blockchain: 'ETH',
      currency: 'USDTERC20',
      status: 'waiting',
      amount_usd: '25.10',
      amount_crypto: '25.100000',
      token: 'USDT',
      transaction_hash: null,
      order_id: 'o-1',
      is_fixed_rate: true,
      is_fee_paid_by_user: false,
    });
    expect(res.body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const minutes = (Date.parse(res.body.expiry_time) - Date.parse(res.body.created_at)) / 60_000;
    expect(minutes).toBe(60);
  });

  it('creates from blockchain + token and from price_amount / price_currency / pay_currency (EUR), fee paid by the user', async () => {
    const byToken = await call('POST', '/payments/', { body: { amount: '30', blockchain: 'ethereum', token: 'usdc', expiry_minutes: 5 } });
    expect([byToken.status, byToken.body.currency]).toEqual([201, 'USDCERC20']);
    const eur = await call('POST', '/payments/', { body: { price_amount: '100', price_currency: 'EUR', pay_currency: 'ETH', is_fee_paid_by_user: true } });
    expect(eur.status).toBe(201);
    // 100 EUR = 110 USD = 0.03666666.. ETH -> 0.03666667 (up); fee 1 % = 0.00036667 (up) -> 0.03703334
    expect(eur.body).toMatchObject({
      amount_usd: '110.00',
      amount_crypto: '0.03703334',
      price_amount: '100',
      price_currency: 'EUR',
      fee_amount: '0.00036667',
      is_fee_paid_by_user: true,
    });
  });

  it('answers 422 invalid_currency with the supported list, and 400 with field details', async () => {
    const bad = await call('POST', '/payments/', { body: { amount: '20', currency: 'DOGE' } });
    expect([bad.status, bad.body.error.code]).toEqual([422, 'invalid_currency']);
    expect(bad.body.error.details.supported_currencies).toContain('USDTERC20');
    expect(bad.body.error.details.supported_currencies).not.toContain('USDTTRC20');
    const missing = await call('POST', '/payments/', { body: { amount: '20' } });
    expect([missing.status, Object.keys(missing.body.error.details)]).toEqual([400, ['currency']]);
    const fields = await call('POST', '/payments/', {
      body: { amount: '20', currency: 'USDTERC20', expiry_minutes: 1441, order_id: 'x'.repeat(101), custom_id: 'y'.repeat(65) },
    });
    expect(fields.status).toBe(400);
    expect(Object.keys(fields.body.error.details).sort()).toEqual(['custom_id', 'expiry_minutes', 'order_id']);
    const low = await call('POST', '/payments/', { body: { amount: '5', currency: 'USDTERC20' } });
    // The amount's message, and the minimum in the merchant's terms (price currency and USD, rounded up to the cent).
    expect([low.status, low.body.error.details]).toEqual([
      400,
      {
        amount: [expect.stringContaining('below the minimum of 10 USDTERC20')],
        minimum: '10',
        currency: 'USDTERC20',
        minimum_price: '10.00',
        price_currency: 'USD',
        min_amount_usd: '10.00',
      },
    ]);
    const wallet = await call('POST', '/payments/', { body: { amount: '20', currency: 'USDTERC20', wallet_id: 'no-such-wallet' } });
    expect([wallet.status, wallet.body.error.code, Object.keys(wallet.body.error.details)]).toEqual([400, 'invalid_request', ['wallet_id']]);
    const url = await call('POST', '/payments/', { body: { amount: '20', currency: 'USDTERC20', callback_url: 'http://example.com/hook' } });
    expect(url.status).toBe(400);
    const loop = await call('POST', '/payments/', { body: { amount: '20', currency: 'USDTERC20', callback_url: 'http://127.0.0.1:9999/hook' } });
    expect([loop.status, loop.body.callback_url]).toEqual([201, 'http://127.0.0.1:9999/hook']);
  });

  it('enforces max_payment_amount and daily_payment_limit', async () => {
    const t = await tenantWithToken('Limited');
    await updateTenantSettings(t.tenantId, {
      limits: { max_payment_amount: '100', daily_payment_limit: '150', max_withdrawal_amount: null, daily_withdrawal_limit: null },
    });
    const c = caller(handler, () => t.bearer);
    expect((await c('POST', '/payments/', { body: { amount: '101', currency: 'USDTERC20' } })).status).toBe(400);
    expect((await c('POST', '/payments/', { body: { amount: '100', currency: 'USDTERC20' } })).status).toBe(201);
    const over = await c('POST', '/payments/', { body: { amount: '60', currency: 'USDTERC20' } });
    expect([over.status, over.body.error.code]).toEqual([400, 'invalid_request']);
    expect((await c('POST', '/payments/', { body: { amount: '50', currency: 'USDTERC20' } })).status).toBe(201);
  });

  it('honours Idempotency-Key: one payment for two requests', async () => {
    const body = { amount: '42', currency: 'DAIERC20' };
    const first = await call('POST', '/payments/', { body, headers: { 'idempotency-key': 'pay-1' } });
    const second = await call('POST', '/payments/', { body, headers: { 'idempotency-key': 'pay-1' } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.transaction_id).toBe(first.body.transaction_id);
    expect(second.headers['Idempotent-Replayed']).toBe('true');
  });

  it('refuses creations beyond the hourly limit with 429', async () => {
    const t = await tenantWithToken('Busy');
    await updateTenantSettings(t.tenantId, { payment_creations_per_hour: 2 });
    const c = caller(handler, () => t.bearer);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await c('POST', '/payments/', { body: { amount: '20', currency: 'USDTERC20' } })).status);
    expect(statuses).toEqual([201, 201, 429]);
  });
});

describe('reading and changing payments', () => {
  it('retrieves, updates, cancels; another tenant gets 404', async () => {
    const made = (await call('POST', '/payments/', { body: { amount: '20', currency: 'USDTERC20' } })).body;
    const id = made.transaction_id as string;
    const got = await call('GET', `/payments/${id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ transaction_id: id, confirmations: 0, payment_history: [], merchant_received_usd: null });
    expect((await callB('GET', `/payments/${id}/`)).status).toBe(404);
    expect((await callB('POST', `/payments/${id}/cancel/`)).status).toBe(404);
    const patched = await call('PATCH', `/payments/${id}/`, {
      body: { order_id: 'new', order_description: 'desc', callback_url: 'https://93.184.216.34/hook' },
    });
    expect(patched.body).toMatchObject({ order_id: 'new', order_description: 'desc', callback_url: 'https://93.184.216.34/hook' });
    const status = await call('POST', '/payments/status/', { body: { transaction_id: id } });
    expect([status.status, status.body.status]).toEqual([200, 'waiting']);
    const cancelled = await call('POST', `/payments/${id}/cancel/`);
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
    const again = await call('POST', `/payments/${id}/cancel/`);
    expect([again.status, again.body.error.code]).toEqual([409, 'invalid_state']);
    expect((await call('PATCH', `/payments/${id}/`, { body: { order_id: 'x' } })).status).toBe(409);
  });

  it('lists in variant A (page form) and variant B (offset form)', async () => {
    const t = await tenantWithToken('Lister');
    const c = caller(handler, () => t.bearer);
    for (const amount of ['20', '50', '30'])
      expect((await c('POST', '/payments/', { body: { amount, currency: 'USDTERC20', order_id: `o-${amount}` } })).status).toBe(201);
    await c('POST', '/payments/', { body: { amount: '60', currency: 'ETH' } }).then((r) => expect(r.status).toBe(201));
    const a1 = await c('GET', '/payments/', { query: { page_size: '2' } });
    expect(a1.body.count).toBe(4);
    expect(a1.body.results).toHaveLength(2);
    expect(a1.body.previous).toBeNull();
    expect(a1.body.next).toContain('page=2');
    expect(Object.keys(a1.body.results[0]).sort()).toEqual(
      [
        'transaction_id',
        'status',
        'payment_type',
        'provider',
        'price_amount',
        'price_currency',
        'pay_amount',
        'pay_currency',
        'blockchain_address',
        'blockchain_network',
        'token',
        'transaction_hash',
        'confirmations',
        'order_id',
        'order_description',
        'merchant_received_usd',
        'payment_history',
        'expiry_time',
        'created_at',
        'updated_at',
        'checkout_url',
        'payment_link_id',
        'subscription_id',
        'subscription_cycle',
      ].sort(),
    );
    // A payment created here: neither a link's nor a subscription's.
    expect(a1.body.results[0]).toMatchObject({ payment_link_id: null, subscription_id: null, subscription_cycle: null });
    const a2 = await c('GET', '/payments/', { query: { page_size: '2', page: '2' } });
    expect(a2.body.next).toBeNull();
    expect(a2.body.previous).toContain('page=1');
    const byAmount = await c('GET', '/payments/', { query: { ordering: '-amount', pay_currency: 'USDTERC20' } });
    expect(byAmount.body.results.map((r: { price_amount: string }) => r.price_amount)).toEqual(['50', '30', '20']);
    expect(byAmount.body.count).toBe(3);
    const ranged = await c('GET', '/payments/', { query: { amount_min: '25', amount_max: '40' } });
    expect(ranged.body.results.map((r: { order_id: string }) => r.order_id)).toEqual(['o-30']);
    const byOrder = await c('GET', '/payments/', { query: { order_id: 'o-20' } });
    expect(byOrder.body.count).toBe(1);
    const b1 = await c('GET', '/payments/', { query: { limit: '2', offset: '1', currency: 'USDTERC20' } });
    expect(b1.body).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(b1.body.results).toHaveLength(2);
    const bEth = await c('GET', '/payments/', { query: { limit: '10', blockchain: 'ETH', token: 'ETH' } });
    expect(bEth.body.total).toBe(1);
    const badStatus = await c('GET', '/payments/', { query: { status: 'nope' } });
    expect([badStatus.status, Object.keys(badStatus.body.error.details)]).toEqual([400, ['status']]);
    const badSize = await c('GET', '/payments/', { query: { page_size: '101' } });
    expect(badSize.status).toBe(400);
  });

  it('estimates and gives the minimum amount', async () => {
    const est = await call('POST', '/payments/estimate/', { body: { amount: '100', currency: 'USDTERC20', is_fee_paid_by_user: true } });
    expect(est.status).toBe(200);
    expect(est.body).toMatchObject({ amount_crypto: '101', fee_amount: '1', merchant_receives: '100', currency: 'USDTERC20' });
    const min = await call('GET', '/payments/min-amount/', { query: { currency: 'USDTERC20' } });
    expect(min.status).toBe(200);
    expect(min.body).toEqual({
      currency: 'USDTERC20',
      min_amount: 10,
      max_amount: 1000000,
      blockchain: 'ETH',
      token: 'USDT',
      min_amount_usd: 10,
      min_amount_price: 10,
      price_currency: 'USD',
    });
    // The minimum in the merchant's fiat, rounded up to the cent: 10 USDT at 1 USD, 1.1 USD per EUR.
    const eur = await call('GET', '/payments/min-amount/', { query: { currency: 'USDTERC20', price_currency: 'EUR' } });
    expect(eur.body).toMatchObject({ min_amount_usd: 10, min_amount_price: 9.1, price_currency: 'EUR' });
    const eth = await call('GET', '/payments/min-amount/', { query: { currency: 'ETH', price_currency: 'GBP' } });
    expect(eth.body).toMatchObject({ min_amount: 0.001, min_amount_usd: 3, min_amount_price: 2.4, price_currency: 'GBP' });
    const fiat = await call('GET', '/payments/min-amount/', { query: { currency: 'USDTERC20', price_currency: 'JPY' } });
    expect([fiat.status, fiat.body.error.code, fiat.body.error.details.field]).toEqual([422, 'invalid_currency', 'price_currency']);
    const bad = await call('GET', '/payments/min-amount/', { query: { currency: 'NOPE' } });
    expect([bad.status, bad.body.error.code]).toEqual([422, 'invalid_currency']);
  });

  it('creates a TRON (USDTTRC20) payment with a TRON CREATE2 address once a TRON factory is configured', async () => {
    const tron = (fill: number) => tronAddressFromBytes(Uint8Array.from([0x41, ...new Array<number>(20).fill(fill)]));
    const withTron = caller(
      api({ FORWARDER_FACTORIES: JSON.stringify({ ETH: FACTORY, TRX: tron(0x11) }), FORWARDER_IMPLEMENTATION_TRX: tron(0x22) }),
      () => a.bearer,
    );
    const res = await withTron('POST', '/payments/', { body: { amount: '15', blockchain: 'TRON', token: 'USDT' } });
    expect([res.status, res.body.currency, res.body.blockchain, res.body.amount_crypto]).toEqual([201, 'USDTTRC20', 'TRX', '15.000000']);
    expect(res.body.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });
});
