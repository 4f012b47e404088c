import fc from 'fast-check';
import { paymentRoutes } from '../../../functions/payments/routes.js';
import { serveCheckout } from '../../../functions/checkout/serve.js';
import { parseConfig } from '../../../shared/config/config.js';
import { CHECKOUT_ID } from '../../../shared/domain/checkout.js';
import { findCurrency } from '../../../shared/domain/currencies.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import { transition } from '../../../shared/domain/payments.js';
import { clientRateLimiter } from '../../../shared/http/client-rate-limit.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { checkoutRuntime } from '../../../shared/runtime/checkout.js';
import type { CheckoutRuntime } from '../../../shared/runtime/checkout.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { meterCapacity } from '../../../shared/store/client.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { aDeposit } from '../../support/fixtures/payments.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { apiEvent } from '../../unit/http/event.js';
import { caller, EVERY_TOKEN_CONTRACT, putFixedRates, tenantWithToken } from '../payments/support.js';

/**
 * The hosted checkout on DynamoDB Local, in process: `checkout_url` on every payment record, `success_url` and
 * `cancel_url` validated like callback URLs, the page and its status endpoint for an unguessable id (what they
 * show, what they never show, their headers), the 404 page, the per-address limit, and the reads a view costs
 * (no write). The page in a real browser is test/integration/browser/checkout.test.ts.
 */
const BASE = 'https://pay.example.com';
const ENV = {
  ALLOW_LOOPBACK_CALLBACKS: 'false',
  PUBLIC_BASE_URL: BASE,
  EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/' }),
  FORWARDER_FACTORIES: JSON.stringify({ ETH: '0x1111111111111111111111111111111111111111' }),
  TOKEN_CONTRACTS: EVERY_TOKEN_CONTRACT,
};
const cfg = () => parseConfig({ ...process.env, ...ENV });

let table: TestTable;
let merchant: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let runtime: CheckoutRuntime;

const idOf = (url: string): string => new URL(url).pathname.split('/')[2] ?? '';
const view = (path: string, options: Parameters<typeof apiEvent>[2] = {}, r: CheckoutRuntime = runtime) =>
  serveCheckout(apiEvent('GET', path, options), r, new Date()).then((a) => ({
    status: a.statusCode ?? 0,
    headers: a.headers ?? {},
    body: String(a.body ?? ''),
  }));
const newPayment = async (body: Record<string, unknown> = {}) => {
  const res = await call('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', ...body } });
  expect(res.status).toBe(201);
  return res.body as Record<string, string>;
};

beforeAll(async () => {
  table = await startTestTable();
  await putFixedRates();
  merchant = await tenantWithToken('Acme <Coffee> & Co');
  call = caller(createApi(paymentRoutes, paymentsRuntime(cfg())), () => merchant.bearer);
  runtime = checkoutRuntime(cfg());
});

afterAll(async () => {
  await table?.stop();
});

describe('checkout_url, success_url and cancel_url on payment records', () => {
  it('names the payment by an unguessable id on the public base URL, the same in the create, get and list records', async () => {
    const created = await newPayment({ success_url: 'https://shop.example.com/thanks?o=1', cancel_url: 'https://shop.example.com/cart' });
    const url = new URL(created.checkout_url ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/checkout/${idOf(created.checkout_url ?? '')}`);
    const id = idOf(created.checkout_url ?? '');
    expect(id).toMatch(CHECKOUT_ID);
    expect(created.checkout_url).not.toContain(created.transaction_id);
    expect([created.success_url, created.cancel_url]).toEqual(['https://shop.example.com/thanks?o=1', 'https://shop.example.com/cart']);

    const got = await call('GET', `/payments/${created.transaction_id}/`);
    const listed = await call('GET', '/payments/', { query: { limit: '50' } });
    expect(got.body.checkout_url).toBe(created.checkout_url);
    expect(listed.body.results.find((r: { transaction_id: string }) => r.transaction_id === created.transaction_id)?.checkout_url).toBe(created.checkout_url);

    // Every payment gets its own.
    const other = await newPayment();
    expect(idOf(other.checkout_url ?? '')).not.toBe(id);
    expect([other.success_url, other.cancel_url]).toEqual([null, null]);
  });

  it.each([
    ['success_url', 'javascript:alert(1)', 'Enter a valid URL.'],
    ['success_url', 'http://shop.example.com/thanks', 'The URL must use HTTPS.'],
    ['cancel_url', 'http://127.0.0.1:8080/cart', 'The URL must use HTTPS.'],
    ['cancel_url', 'https://user:pw@shop.example.com/', 'The URL must not carry credentials.'],
  ])('refuses %s %s like a callback URL (400 invalid_url), creating nothing', async (field, value, message) => {
    const before = (await call('GET', '/payments/', { query: { limit: '1' } })).body.total as number;
    const res = await call('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', [field]: value } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_url',
      details: { [field]: [expect.stringContaining(message === 'Enter a valid URL.' ? 'HTTPS' : message)] },
    });
    expect((await call('GET', '/payments/', { query: { limit: '1' } })).body.total).toBe(before);
  });

  it('takes plain-HTTP loopback pages only where loopback callbacks are allowed (the local stack)', async () => {
    const local = caller(
      createApi(paymentRoutes, paymentsRuntime(parseConfig({ ...process.env, ...ENV, ALLOW_LOOPBACK_CALLBACKS: 'true' }))),
      () => merchant.bearer,
    );
    const res = await local('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', success_url: 'http://127.0.0.1:8080/thanks' } });
    expect([res.status, res.body.success_url]).toEqual([201, 'http://127.0.0.1:8080/thanks']);
  });
});

describe('the page and its status endpoint', () => {
  it('shows the merchant, the order, the amount, the address and the network, escaped, with a strict policy', async () => {
    const p = await newPayment({ order_description: '<script>alert("x")</script> Two flat whites', order_id: 'A-17' });
    const page = await view(`/checkout/${idOf(p.checkout_url ?? '')}`);
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    });
    const csp = page.headers['Content-Security-Policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain(`<textarea id="address" readonly rows="2" spellcheck="false">${p.address}</textarea>`);
    expect(page.body).toContain(`value="${p.amount_crypto}"`);
    expect(page.body).toContain('USDT on Ethereum (ERC-20)');
    expect(page.body).toContain('Acme &lt;Coffee&gt; &amp; Co');
    expect(page.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Two flat whites');
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).toContain('Order A-17');
    expect(page.body).toContain('$25.00');
    // One script, one style sheet, both inline: nothing to fetch.
    expect(page.body.match(/<script/g)).toHaveLength(1);
    expect(page.body).not.toMatch(/<(link|iframe|object|embed)\b|src="(https?:)?\/\//);
  });

  it('answers the status with what the page shows and nothing else: no tenant, transaction id, callback URL or webhook data', async () => {
    const p = await newPayment({ callback_url: 'https://hooks.example.com/secret-callback', customer_email: 'buyer@example.com', custom_id: 'cust-9' });
    const status = await view(`/checkout/${idOf(p.checkout_url ?? '')}/status`);
    expect(status.status).toBe(200);
    expect(status.headers['Content-Type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(status.body) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        'state',
        'merchant_name',
        'order_description',
        'order_id',
        'price_amount',
        'price_currency',
        'currency',
        'token',
        'network',
        'standard',
        'amount',
        'paid',
        'due',
        'address',
        'payment_uri',
        'qr',
        'confirmations',
        'confirmations_required',
        'expiry_time',
        'success_url',
        'cancel_url',
        'server_time',
      ].sort(),
    );
    const contract = JSON.parse(EVERY_TOKEN_CONTRACT).USDTERC20 as string;
    expect(body).toMatchObject({
      state: 'waiting',
      merchant_name: 'Acme <Coffee> & Co',
      amount: p.amount_crypto,
      due: p.amount_crypto,
      address: p.address,
      payment_uri: `ethereum:${contract}@1/transfer?address=${p.address}&uint256=${toBaseUnits(p.amount_crypto ?? '', 6)}`,
      qr: expect.stringMatching(/^data:image\/svg\+xml;base64,/),
      // The local stage asks for at most 2 (12 on Ethereum elsewhere).
      confirmations_required: Math.min(2, findCurrency('USDTERC20')?.confirmations ?? 0),
    });
    for (const secret of [merchant.tenantId, p.transaction_id, 'secret-callback', 'buyer@example.com', 'cust-9']) expect(status.body).not.toContain(secret);
  });

  it('after a partial deposit, asks for the rest to the same address; once paid, shows the way back; cancelled, nothing to pay', async () => {
    const p = await newPayment({ success_url: 'https://shop.example.com/thanks', cancel_url: 'https://shop.example.com/cart' });
    const id = idOf(p.checkout_url ?? '');
    const state = async () => JSON.parse((await view(`/checkout/${id}/status`)).body) as Record<string, unknown>;
    const stored = await dynamoPayments.get(merchant.tenantId, p.transaction_id ?? '');
    if (!stored) throw new Error('no payment');
    const now = new Date();
    // 10 of 25 arrives and is confirmed: partially paid.
    const seen = await dynamoPayments.save(
      stored,
      transition(stored, { kind: 'deposit', deposit: aDeposit('ETH:0xa:0', '10', { confirmations: 0 }, now) }, now),
      now,
    );
    expect(await state()).toMatchObject({ state: 'seen', paid: '10.000000', due: '15.000000', cancel_url: 'https://shop.example.com/cart', success_url: null });
    const partial = await dynamoPayments.save(
      seen,
      transition(seen, { kind: 'confirmations', byDeposit: { 'ETH:0xa:0': 12 }, confirmationsNeeded: 12, tolerancePercent: '0' }, now),
      now,
    );
    expect(partial.status).toBe('partially_paid');
    const rest = await state();
    expect(rest).toMatchObject({ state: 'partially_paid', paid: '10.000000', due: '15.000000', address: p.address });
    expect(rest.payment_uri).toMatch(/&uint256=15000000$/);
    // The rest arrives and is confirmed: paid, with the way back to the shop.
    const topped = await dynamoPayments.save(
      partial,
      transition(partial, { kind: 'deposit', deposit: aDeposit('ETH:0xb:0', '15', { confirmations: 0 }, now) }, now),
      now,
    );
    const paid = await dynamoPayments.save(
      topped,
      transition(topped, { kind: 'confirmations', byDeposit: { 'ETH:0xa:0': 13, 'ETH:0xb:0': 12 }, confirmationsNeeded: 12, tolerancePercent: '0' }, now),
      now,
    );
    expect(paid.status).toBe('confirmed');
    expect(await state()).toMatchObject({
      state: 'paid',
      paid: '25.000000',
      due: '0.000000',
      payment_uri: null,
      qr: null,
      success_url: 'https://shop.example.com/thanks',
      cancel_url: null,
    });
    const paidPage = await view(`/checkout/${id}`);
    expect(paidPage.body).toContain('Paid. Thank you!');
    expect(paidPage.body).toContain('<a id="success-link" href="https://shop.example.com/thanks">Back to Acme &lt;Coffee&gt; &amp; Co</a>');

    const cancelledP = await newPayment({ success_url: 'https://shop.example.com/thanks', cancel_url: 'https://shop.example.com/cart' });
    await call('POST', `/payments/${cancelledP.transaction_id}/cancel/`);
    const cancelled = JSON.parse((await view(`/checkout/${idOf(cancelledP.checkout_url ?? '')}/status`)).body) as Record<string, unknown>;
    expect(cancelled).toMatchObject({ state: 'cancelled', due: '0.000000', payment_uri: null, qr: null, success_url: null });
    const page = await view(`/checkout/${idOf(cancelledP.checkout_url ?? '')}`);
    expect(page.body).toContain('This payment was cancelled.');
    expect(page.body).toContain('<div id="pay" hidden>');
  });

  it('speaks German or Spanish by Accept-Language, ?lang= overriding it, with numbers and dates of the locale', async () => {
    const p = await newPayment({ amount: '1234.5', currency: 'USDTERC20', price_currency: 'EUR' });
    const id = idOf(p.checkout_url ?? '');
    const de = await view(`/checkout/${id}`, { headers: { 'accept-language': 'fr-CH, de;q=0.9, en;q=0.8' } });
    expect(de.body).toContain('<html lang="de">');
    expect(de.body).toContain('Wir warten auf Ihre Zahlung');
    expect(de.body).toContain('1.234,50\u00a0€');
    expect(de.headers.Vary).toBe('Accept-Language');
    const es = await view(`/checkout/${id}`, { headers: { 'accept-language': 'de' }, query: { lang: 'es' } });
    expect(es.body).toContain('<html lang="es">');
    expect(es.body).toContain('Esperando su pago');
    const fallback = await view(`/checkout/${id}`, { headers: { 'accept-language': 'fr, it;q=0.5' } });
    expect(fallback.body).toContain('<html lang="en">');
  });

  it.each([
    ['an unknown id', '/checkout/AAAAAAAAAAAAAAAAAAAAAA'],
    ['an id of the wrong form', '/checkout/..%2F..%2Fetc'],
    ['a transaction id', '/checkout/5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10'],
    ['a path below a page', '/checkout/AAAAAAAAAAAAAAAAAAAAAA/elsewhere'],
    ['the bare prefix', '/checkout'],
  ])('answers %s with the readable 404 page', async (_what, path) => {
    const page = await view(path, { headers: { 'accept-language': 'de' } });
    expect(page.status).toBe(404);
    expect(page.body).toContain('<h1>Zahlung nicht gefunden</h1>');
  });

  it('answers an unknown status in the error envelope, and a POST with 405', async () => {
    const status = await view('/checkout/AAAAAAAAAAAAAAAAAAAAAA/status');
    expect([status.status, JSON.parse(status.body).error.code]).toEqual([404, 'not_found']);
    const post = await serveCheckout(apiEvent('POST', '/checkout/AAAAAAAAAAAAAAAAAAAAAA'), runtime, new Date());
    expect([post.statusCode, post.headers?.Allow]).toEqual([405, 'GET, HEAD']);
  });
});

describe('hostile requests', () => {
  it('never answer 5xx: any path below /checkout, any method, language header and lang parameter', async () => {
    const p = await newPayment();
    const known = idOf(p.checkout_url ?? '');
    const unlimited: CheckoutRuntime = { ...runtime, limiter: clientRateLimiter(1_000_000) };
    const segment = fc.oneof(fc.constant(known), fc.string({ maxLength: 30 }), fc.constantFrom('status', '..', '%00', '%E0%A4%A', 'AAAAAAAAAAAAAAAAAAAAAA'));
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 4 }),
        fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'),
        fc.option(fc.string({ maxLength: 60 })),
        fc.option(fc.string({ maxLength: 12 })),
        async (segments, method, language, lang) => {
          const event = apiEvent(method, `/checkout/${segments.join('/')}`, {
            ...(language === null ? {} : { headers: { 'accept-language': language } }),
            ...(lang === null ? {} : { query: { lang } }),
          });
          const answer = await serveCheckout(event, unlimited, new Date());
          expect([200, 404, 405]).toContain(answer.statusCode);
        },
      ),
      { seed: 20261125, numRuns: 150 },
    );
  });
});

describe('limits and costs', () => {
  it('limits requests per client address (429 with Retry-After), each address on its own', async () => {
    const p = await newPayment();
    const limited: CheckoutRuntime = { ...runtime, limiter: clientRateLimiter(3) };
    const path = `/checkout/${idOf(p.checkout_url ?? '')}`;
    const from = (ip: string, suffix = '') => view(`${path}${suffix}`, { sourceIp: ip }, limited);
    expect([(await from('198.51.100.1')).status, (await from('198.51.100.1', '/status')).status, (await from('198.51.100.1')).status]).toEqual([200, 200, 200]);
    const page = await from('198.51.100.1');
    const status = await from('198.51.100.1', '/status');
    expect([page.status, status.status, JSON.parse(status.body).error.code]).toEqual([429, 429, 'rate_limit_exceeded']);
    expect(Number(page.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(Number(status.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect((await from('198.51.100.2')).status).toBe(200);
  });

  it('reads and never writes: the first view a GetItem and a BatchGetItem, later views the BatchGetItem alone', async () => {
    const p = await newPayment();
    const fresh = checkoutRuntime(cfg());
    const path = `/checkout/${idOf(p.checkout_url ?? '')}`;
    const meter = meterCapacity();
    try {
      expect((await view(path, {}, fresh)).status).toBe(200);
      const first = meter.totals();
      meter.reset();
      expect((await view(`${path}/status`, {}, fresh)).status).toBe(200);
      const later = meter.totals();
      expect([first.write, later.write]).toEqual([0, 0]);
      expect(Object.fromEntries(Object.entries(first.byCommand).map(([k, v]) => [k, v.calls]))).toEqual({ GetItemCommand: 1, BatchGetItemCommand: 1 });
      expect(Object.fromEntries(Object.entries(later.byCommand).map(([k, v]) => [k, v.calls]))).toEqual({ BatchGetItemCommand: 1 });
    } finally {
      meter.stop();
    }
  });
});
