import type { LinkPageDeps } from '../../../functions/payment-link-pages/link-serve.js';
import { serveLinkPage } from '../../../functions/payment-link-pages/link-serve.js';
import type { Config } from '../../../shared/config/config.js';
import { resetConfig } from '../../../shared/config/config.js';
import { add } from '../../../shared/domain/money.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { clientRateLimiter } from '../../../shared/http/client-rate-limit.js';
import { linkCompletionsRuntime, paymentLinksRuntime } from '../../../shared/runtime/payment-links.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { completePayment } from '../../../shared/usecases/payments/settle.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { outboxChanges } from '../../support/outbox.js';
import { apiEvent } from '../../unit/http/event.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { received, routedApi } from '../refunds/support.js';

/**
 * Payment links on DynamoDB Local through the real API Lambdas and the public page's handler: the merchant's CRUD and
 * its refusals in the error envelope; payers opening payments on the page (only by POST), each an ordinary payment
 * carrying payment_link_id; completions counted exactly, `max_completions` raced by ten payers; deactivated, expired
 * and completed links answering a readable page and opening nothing.
 */
let table: TestTable;
let cfg: Config;
let a: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let pages: LinkPageDeps;

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
  a = await tenantWithToken('Links A');
  cfg = servingEth({ PUBLIC_BASE_URL: 'https://pay.example.com' });
  call = caller(routedApi(cfg, ['payments', 'payment-links']), () => a.bearer);
  pages = { links: paymentLinksRuntime(cfg), limiter: clientRateLimiter(100_000) };
});

afterAll(async () => {
  await table?.stop();
});

type Options = Parameters<typeof apiEvent>[2];
/** `now` other than the clock's: on a limiter of its own (a per-minute window does not run backwards). */
const page = async (method: string, path: string, options: Options = {}, now?: Date) => {
  const deps = now ? { ...pages, limiter: clientRateLimiter(100_000) } : pages;
  const res = await serveLinkPage(apiEvent(method, path, options), deps, now ?? new Date());
  return { status: res.statusCode ?? 0, headers: (res.headers ?? {}) as Record<string, string>, body: String(res.body ?? '') };
};
const form = (fields: Record<string, string>): Options => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
const stateOf = (html: string) => /<main data-state="(\w+)"/.exec(html)?.[1];

async function newLink(body: Record<string, unknown>) {
  const res = await call('POST', '/payment-links/', { body: { name: 'Concert ticket', ...body } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, path: new URL(res.body.url as string).pathname, body: res.body };
}

/** A payer's visit that pays: the page's form posted, answered with the new payment's checkout. */
async function pay(path: string, fields: Record<string, string>) {
  const res = await page('POST', path, form(fields));
  expect([res.status, res.headers.Location]).toEqual([303, expect.stringMatching(/^\/checkout\/[A-Za-z0-9_-]{22}$/)]);
  return res.headers.Location as string;
}

const linkPayments = async (id: string): Promise<PaymentState[]> => {
  const res = await call('GET', `/payment-links/${id}/payments/`, { query: { limit: '100' } });
  expect(res.status).toBe(200);
  return Promise.all(
    (res.body.results as { transaction_id: string }[]).map(async (r) => (await dynamoPayments.get(a.tenantId, r.transaction_id)) as PaymentState),
  );
};

const completions = () => ({ ...paymentsRuntime(cfg), linkCompletion: linkCompletionsRuntime() });

describe('the merchant API', () => {
  test('creates, reads, lists, changes and deactivates a link', async () => {
    const made = await newLink({ amount: '25', price_currency: 'EUR', currencies: ['USDTERC20', 'ETH'], max_completions: 5, metadata: { sku: 'T-1' } });
    expect(made.body).toMatchObject({
      status: 'active',
      amount: '25',
      price_currency: 'EUR',
      allow_custom_amount: false,
      currencies: ['USDTERC20', 'ETH'],
      max_completions: 5,
      completed_count: 0,
      over_limit_count: 0,
      metadata: { sku: 'T-1' },
      deactivated_at: null,
    });
    expect(made.body.url).toMatch(/^https:\/\/pay\.example\.com\/pay\/[A-Za-z0-9_-]{22}$/);
    expect((await call('GET', `/payment-links/${made.id}/`)).body).toEqual(made.body);
    const listed = await call('GET', '/payment-links/');
    expect(listed.body.results.map((l: { id: string }) => l.id)).toContain(made.id);

    const changed = await call('PATCH', `/payment-links/${made.id}/`, { body: { name: 'VIP ticket', max_completions: null, description: 'Row A' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'VIP ticket', description: 'Row A', max_completions: null, amount: '25' });

    const off = await call('POST', `/payment-links/${made.id}/deactivate/`);
    expect([off.status, off.body.status, typeof off.body.deactivated_at]).toEqual([200, 'inactive', 'string']);
    const again = await call('POST', `/payment-links/${made.id}/deactivate/`);
    expect([again.status, again.body.deactivated_at]).toEqual([200, off.body.deactivated_at]);
    const late = await call('PATCH', `/payment-links/${made.id}/`, { body: { name: 'Too late' } });
    expect([late.status, late.body.error.code]).toEqual([409, 'invalid_state']);
  });

  test('pages the list with a cursor', async () => {
    const other = await tenantWithToken('Links paging');
    const own = caller(routedApi(cfg, ['payment-links']), () => other.bearer);
    for (const n of [1, 2, 3]) await own('POST', '/payment-links/', { body: { name: `Item ${n}`, amount: '5', currencies: ['USDTERC20'] } });
    const first = await own('GET', '/payment-links/', { query: { limit: '2' } });
    expect(first.body.results.map((l: { name: string }) => l.name)).toEqual(['Item 3', 'Item 2']);
    const second = await own('GET', '/payment-links/', { query: { limit: '2', cursor: first.body.next_cursor } });
    expect(second.body.results.map((l: { name: string }) => l.name)).toEqual(['Item 1']);
    // Another tenant's link is not found.
    const mine = await newLink({ amount: '5', currencies: ['USDTERC20'] });
    expect((await own('GET', `/payment-links/${mine.id}/`)).status).toBe(404);
  });

  test.each([
    [{ currencies: ['USDTERC20'] }, 400, 'amount'],
    [{ amount: '10', currencies: [] }, 400, 'currencies'],
    [{ amount: '10', currencies: ['USDTERC20', 'USDTERC20'] }, 400, 'currencies'],
    [{ amount: '10.001', currencies: ['USDTERC20'] }, 400, 'amount'],
    [{ amount: '10', allow_custom_amount: true, currencies: ['USDTERC20'] }, 400, 'amount'],
    [{ allow_custom_amount: true, min_amount: '50', max_amount: '10', currencies: ['USDTERC20'] }, 400, 'min_amount'],
    [{ amount: '10', min_amount: '5', currencies: ['USDTERC20'] }, 400, 'min_amount'],
    [{ amount: '10', currencies: ['USDTERC20'], max_completions: 0 }, 400, 'max_completions'],
    [{ amount: '10', currencies: ['USDTERC20'], expires_at: '2001-01-01T00:00:00Z' }, 400, 'expires_at'],
    [{ amount: '10', currencies: ['USDTERC20'], success_url: 'http://shop.example.com/' }, 400, 'success_url', 'invalid_url'],
  ])('refuses %j with %i naming %s', async (body, status, field, code = 'invalid_request') => {
    const res = await call('POST', '/payment-links/', { body: { name: 'Bad', ...body } });
    expect([res.status, res.body.error.code]).toEqual([status, code]);
    expect(Object.keys(res.body.error.details)).toContain(field);
  });

  test('refuses a currency not served here (422 invalid_currency) and an unknown id (404)', async () => {
    const res = await call('POST', '/payment-links/', { body: { name: 'Bad', amount: '10', currencies: ['USDTERC20', 'NOPE'] } });
    expect([res.status, res.body.error.code, res.body.error.details.field]).toEqual([422, 'invalid_currency', 'currencies.1']);
    expect((await call('GET', '/payment-links/00000000-0000-4000-8000-000000000000/')).status).toBe(404);
    expect((await call('GET', '/payment-links/not-a-uuid/')).status).toBe(404);
  });
});

describe('the public page', () => {
  test('a GET opens nothing; each payer POST opens an ordinary payment carrying payment_link_id; three payers count 3', async () => {
    const link = await newLink({ amount: '10', currencies: ['USDTERC20', 'ETH'] });
    const shown = await page('GET', link.path);
    expect([shown.status, stateOf(shown.body)]).toEqual([200, 'active']);
    expect(shown.body).toContain('name="currency" value="ETH"');
    expect(shown.headers['Content-Security-Policy']).toContain("default-src 'none'");
    expect(await linkPayments(link.id)).toEqual([]);

    const checkouts = [];
    for (let i = 0; i < 3; i++) checkouts.push(await pay(link.path, { currency: 'USDTERC20' }));
    const opened = await linkPayments(link.id);
    expect(opened.map((p) => [p.currency, p.priceAmount, p.paymentLinkId, `/checkout/${p.checkoutId}`])).toEqual(
      checkouts.map((checkout) => ['USDTERC20', '10', link.id, checkout]),
    );
    // Each its own deposit address; the payment's own record names the link.
    expect(new Set(opened.map((p) => p.address)).size).toBe(3);
    const record = await call('GET', `/payments/${opened[0]?.id}/`);
    expect([record.body.payment_link_id, record.body.order_description]).toEqual([link.id, 'Concert ticket']);
    const listed = (await call('GET', '/payments/', { query: { limit: '100' } })).body.results as Array<Record<string, unknown>>;
    expect(
      listed
        .filter((p) => p.payment_link_id === link.id)
        .map((p) => p.transaction_id)
        .sort(),
    ).toEqual(opened.map((p) => p.id).sort());

    const before = await getBalance(a.tenantId, 'main', 'USDTERC20');
    for (const p of opened) await completePayment(await received(p, '10', 'sending'), '0xsweep', completions(), new Date());
    const after = await call('GET', `/payment-links/${link.id}/`);
    expect([after.body.completed_count, after.body.over_limit_count, after.body.status]).toEqual([3, 0, 'active']);
    expect((await getBalance(a.tenantId, 'main', 'USDTERC20')).amount).toBe(add(before.amount, '29.7'));
  });

  test('a custom amount is entered and checked on the page', async () => {
    const link = await newLink({ allow_custom_amount: true, min_amount: '5', max_amount: '100', currencies: ['USDTERC20'] });
    const low = await page('POST', link.path, form({ currency: 'USDTERC20', amount: '2' }));
    expect([low.status, stateOf(low.body)]).toEqual([400, 'active']);
    expect(low.body).toContain('at least 5 USD');
    const bad = await page('POST', link.path, form({ currency: 'USDTERC20', amount: 'ten' }));
    expect(bad.status).toBe(400);
    await pay(link.path, { currency: 'USDTERC20', amount: '42.50' });
    expect((await linkPayments(link.id)).map((p) => p.priceAmount)).toEqual(['42.5']);
  });

  test('the payer picks a currency of the link, and no other', async () => {
    const link = await newLink({ amount: '30', currencies: ['USDTERC20', 'ETH'] });
    const res = await page('POST', link.path, form({ currency: 'USDCERC20' }));
    expect([res.status, stateOf(res.body)]).toEqual([400, 'active']);
    expect(await page('POST', link.path, form({}))).toMatchObject({ status: 400 });
    expect(await linkPayments(link.id)).toEqual([]);
    await pay(link.path, { currency: 'ETH' });
    // 30 USD at 3000 USD an ETH.
    expect((await linkPayments(link.id)).map((p) => [p.currency, p.priceCrypto])).toEqual([['ETH', '0.01']]);
  });

  test('deactivated, expired and unknown links answer a readable page and open no payment', async () => {
    const off = await newLink({ amount: '10', currencies: ['USDTERC20'] });
    await call('POST', `/payment-links/${off.id}/deactivate/`);
    const shown = await page('GET', off.path);
    expect([shown.status, stateOf(shown.body)]).toEqual([200, 'inactive']);
    expect(shown.body).not.toContain('<form');
    const posted = await page('POST', off.path, form({ currency: 'USDTERC20' }));
    expect([posted.status, stateOf(posted.body)]).toEqual([409, 'inactive']);
    expect(await linkPayments(off.id)).toEqual([]);

    const expiring = await newLink({ amount: '10', currencies: ['USDTERC20'], expires_at: new Date(Date.now() + 3600_000).toISOString() });
    const later = new Date(Date.now() + 2 * 3600_000);
    const expired = await page('GET', expiring.path, {}, later);
    expect([expired.status, stateOf(expired.body)]).toEqual([200, 'expired']);
    const refused = await page('POST', expiring.path, form({ currency: 'USDTERC20' }), later);
    expect([refused.status, stateOf(refused.body)]).toEqual([409, 'expired']);
    expect(await linkPayments(expiring.id)).toEqual([]);

    const unknown = await page('GET', '/pay/AAAAAAAAAAAAAAAAAAAAAA');
    expect(unknown.status).toBe(404);
  });
});

describe('max_completions', () => {
  test('raced by ten payers who all opened payments: exactly 2 counted, 8 credited and flagged over the limit, nothing lost', async () => {
    const merchant = await tenantWithToken('Links race');
    const own = caller(routedApi(cfg, ['payments', 'payment-links']), () => merchant.bearer);
    const made = await own('POST', '/payment-links/', { body: { name: 'Limited edition', amount: '10', currencies: ['USDTERC20'], max_completions: 2 } });
    const path = new URL(made.body.url as string).pathname;
    for (let i = 0; i < 10; i++) await pay(path, { currency: 'USDTERC20' });
    const listed = await own('GET', `/payment-links/${made.body.id}/payments/`, { query: { limit: '100' } });
    const opened = await Promise.all(
      (listed.body.results as { transaction_id: string }[]).map(async (r) => (await dynamoPayments.get(merchant.tenantId, r.transaction_id)) as PaymentState),
    );
    expect(opened).toHaveLength(10);
    const sending = await Promise.all(opened.map((p) => received(p, '10', 'sending')));

    const done = await Promise.all(sending.map((p, i) => completePayment(p, `0xsweep${i}`, completions(), new Date())));
    expect(done.map((p) => p.status)).toEqual(Array(10).fill('completed'));
    expect(done.filter((p) => p.flags.includes('payment_link_over_limit'))).toHaveLength(8);

    const link = await own('GET', `/payment-links/${made.body.id}/`);
    expect([link.body.completed_count, link.body.over_limit_count, link.body.status]).toEqual([2, 8, 'completed']);
    // Every payer's money is credited: 10 payments of 10 USDT less the 1 % fee.
    expect(await getBalance(merchant.tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '99' });
    const flagged = await own('GET', `/payments/${done.find((p) => p.flags.includes('payment_link_over_limit'))?.id}/`);
    expect([flagged.body.status, flagged.body.flags, flagged.body.merchant_received]).toEqual(['completed', ['payment_link_over_limit'], '9.9']);
    // Announced: its payment.completed webhook names the link and carries the flag.
    const announced = (await outboxChanges(`payment:${flagged.body.transaction_id as string}:`)).flat().find((e) => e.type === 'payment.completed');
    expect(announced?.payload).toMatchObject({ status: 'completed', flags: ['payment_link_over_limit'], payment_link_id: made.body.id });

    // The link now opens nothing, and says so.
    const shown = await page('GET', path);
    expect([shown.status, stateOf(shown.body)]).toEqual([200, 'completed']);
    expect((await page('POST', path, form({ currency: 'USDTERC20' }))).status).toBe(409);
    expect((await own('GET', `/payment-links/${made.body.id}/payments/`, { query: { limit: '100' } })).body.results).toHaveLength(10);
    // A completion repeated (a replayed sweep result) moves nothing.
    await expect(completePayment(sending[0] as PaymentState, '0xsweep0', completions(), new Date())).rejects.toThrow();
    expect((await own('GET', `/payment-links/${made.body.id}/`)).body).toMatchObject({ completed_count: 2, over_limit_count: 8 });
  });
});
