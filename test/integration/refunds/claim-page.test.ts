import { serveClaim } from '../../../functions/refund-claims/claim-serve.js';
import type { ClaimPageDeps } from '../../../functions/refund-claims/claim-serve.js';
import { CLAIM_MESSAGES } from '../../../functions/refund-claims/claim-i18n.js';
import { resetConfig } from '../../../shared/config/config.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { clientRateLimiter } from '../../../shared/http/client-rate-limit.js';
import { refundsRuntime } from '../../../shared/runtime/refunds.js';
import { dynamoRefunds } from '../../../shared/store/refunds.js';
import { expireRefundClaims } from '../../../shared/usecases/refunds/expire.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { apiEvent } from '../../unit/http/event.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import type { Merchant } from './support.js';
import { paid as paidPayment, routedApi } from './support.js';

/**
 * The refund claim page over its handler on DynamoDB Local: a claim link opened, the address entered twice and set
 * once (awaiting_address -> pending, seen through the API too); refused entries (mismatch, wrong network, empty)
 * leave the refund as it was; replays, concurrent submissions, expired and cancelled claims; unknown links.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OTHER = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const t = CLAIM_MESSAGES.en;
let table: TestTable;
let a: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let handler: Handler;
let deps: ClaimPageDeps;

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
  a = await tenantWithToken('Claims A');
  const cfg = servingEth({ PUBLIC_BASE_URL: 'https://pay.example.com', HOT_WALLET_KEY_ID: 'hot-wallet-key' });
  handler = routedApi(cfg, ['payments', 'refunds']);
  call = caller(handler, () => a.bearer);
  deps = { refunds: refundsRuntime(cfg), limiter: clientRateLimiter(100_000) };
});

afterAll(async () => {
  await table?.stop();
});

/** A 100 USDTERC20 payment (1 % fee, the merchant's) that received `got` and completed: credited `got - 1`. */
const paid = (got: string, who: Merchant = { tenantId: a.tenantId, call }): Promise<PaymentState> => paidPayment(who, got);

interface Claim {
  id: string;
  path: string;
  token: string;
}

/** A claim-link refund of a 120 USDT payment's 20 excess. */
async function claimLink(): Promise<Claim> {
  const p = await paid('120');
  const res = await call('POST', `/payments/${p.id}/refunds/`, { body: {} });
  expect([res.status, res.body.status]).toEqual([201, 'awaiting_address']);
  const url = new URL(res.body.claim_url as string);
  expect(url.origin).toBe('https://pay.example.com');
  return { id: res.body.id as string, path: url.pathname, token: url.pathname.split('/')[2] ?? '' };
}

type Options = Parameters<typeof apiEvent>[2];
/** `now` other than the clock's: on a limiter of its own (a per-minute window does not run backwards). */
const page = async (method: string, path: string, options: Options = {}, now?: Date, limits: ClaimPageDeps = deps) => {
  const at = now ?? new Date();
  const res = await serveClaim(apiEvent(method, path, options), now ? { ...limits, limiter: clientRateLimiter(100_000) } : limits, at);
  return { status: res.statusCode ?? 0, headers: (res.headers ?? {}) as Record<string, string>, body: String(res.body ?? '') };
};
const form = (fields: Record<string, string>): Options => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
const submit = (path: string, address: string, confirmation = address, now?: Date) =>
  page('POST', path, form({ address, address_confirmation: confirmation }), now);
const refundOf = async (id: string) => (await call('GET', `/refunds/${id}/`)).body;
const stateOf = (html: string) => /<main data-state="(\w+)"/.exec(html)?.[1];

describe('GET /refund-claims/{token}', () => {
  it('an open claim: 200, the amount and the form, strict headers, no script allowed', async () => {
    const c = await claimLink();
    const res = await page('GET', c.path);
    expect(res.status).toBe(200);
    expect(stateOf(res.body)).toBe('open');
    expect(res.body).toContain('20 USDT');
    expect(res.body).toContain(`action="${c.path}"`);
    expect(res.headers['Content-Security-Policy']).toMatch(/default-src 'none'.*form-action 'self'/);
    expect(res.headers['Content-Security-Policy']).not.toContain('script-src');
    expect(res.headers['X-Frame-Options']).toBe('DENY');
    expect(res.headers['Cache-Control']).toBe('no-store');
  });

  it('speaks the language the browser asks for', async () => {
    const c = await claimLink();
    const res = await page('GET', c.path, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    expect(res.body).toContain('<html lang="de">');
    expect(res.body).toContain(CLAIM_MESSAGES.de.submit);
  });

  it('404 page for an unknown token, a malformed one and the bare prefix', async () => {
    for (const path of ['/refund-claims/AAAAAAAAAAAAAAAAAAAAAA', '/refund-claims/nope', '/refund-claims/', '/refund-claims']) {
      const res = await page('GET', path);
      expect([path, res.status, res.body.includes(t.notFoundTitle)]).toEqual([path, 404, true]);
    }
  });
});

describe('POST /refund-claims/{token}', () => {
  it('sets the address once: 303 back to the page, which shows the refund pending; the API shows it too', async () => {
    const c = await claimLink();
    const res = await page('POST', c.path, { ...form({ address: ` ${DEST} `, address_confirmation: DEST }), base64: true });
    expect([res.status, res.headers.Location]).toEqual([303, c.path]);
    const shown = await page('GET', c.path);
    expect([shown.status, stateOf(shown.body)]).toEqual([200, 'set']);
    expect(shown.body).toContain(t.pending);
    expect(shown.body).toContain(DEST);
    expect(shown.body).not.toContain('<form');
    expect(await refundOf(c.id)).toMatchObject({ status: 'pending', address: DEST, claim_url: null, network_fee: '3', amount: '20' });
  });

  it('the two entries differ: 400, the form again with both entries and why; the refund still awaits', async () => {
    const c = await claimLink();
    const res = await submit(c.path, DEST, OTHER);
    expect(res.status).toBe(400);
    expect(res.body).toContain(t.mismatch);
    expect(res.body).toContain(`value="${OTHER}"`);
    expect(stateOf(res.body)).toBe('open');
    expect(await refundOf(c.id)).toMatchObject({ status: 'awaiting_address', address: null });
  });

  it('not an address of the network (or none): 400 with why; the refund still awaits', async () => {
    const c = await claimLink();
    for (const [address, text] of [
      ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'This is not a valid Ethereum address.'],
      ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'This is not a valid Ethereum address.'],
      ['', t.addressMissing],
    ] as const) {
      const res = await submit(c.path, address);
      expect([address, res.status, res.body.includes(text)]).toEqual([address, 400, true]);
    }
    expect(await refundOf(c.id)).toMatchObject({ status: 'awaiting_address', address: null });
  });

  it('a replay, or another address after it is set: 409, the page as it is, the address unchanged', async () => {
    const c = await claimLink();
    expect((await submit(c.path, DEST)).status).toBe(303);
    const version = (await dynamoRefunds.get(a.tenantId, c.id))?.version;
    for (const address of [DEST, OTHER]) {
      const res = await submit(c.path, address);
      expect([res.status, stateOf(res.body), res.body.includes('<form')]).toEqual([409, 'set', false]);
    }
    expect(await refundOf(c.id)).toMatchObject({ status: 'pending', address: DEST });
    expect((await dynamoRefunds.get(a.tenantId, c.id))?.version).toBe(version);
  });

  it('two submissions at once: one sets its address, the other is refused', async () => {
    const c = await claimLink();
    const answers = await Promise.all([submit(c.path, DEST), submit(c.path, OTHER)]);
    expect(answers.map((r) => r.status).sort()).toEqual([303, 409]);
    const winner = answers[0]?.status === 303 ? DEST : OTHER;
    expect(await refundOf(c.id)).toMatchObject({ status: 'pending', address: winner });
  });

  it('an expired claim says so and takes no address, before and after the expirer ran', async () => {
    const c = await claimLink();
    const after = new Date(Date.now() + 73 * 3600_000);
    const shown = await page('GET', c.path, {}, after);
    expect([shown.status, stateOf(shown.body), shown.body.includes(t.expired)]).toEqual([200, 'expired', true]);
    const refused = await submit(c.path, DEST, DEST, after);
    expect([refused.status, stateOf(refused.body)]).toEqual([409, 'expired']);
    expect(await refundOf(c.id)).toMatchObject({ status: 'awaiting_address', address: null });
    // The expirer runs (other tests' claims expire too); the page then says the same.
    await expireRefundClaims({ refunds: dynamoRefunds, clock: { now: () => after } }, 1000);
    expect(await refundOf(c.id)).toMatchObject({ status: 'expired', address: null });
    const later = await page('GET', c.path, {}, after);
    expect([later.status, stateOf(later.body), later.body.includes(t.expired)]).toEqual([200, 'expired', true]);
    expect((await submit(c.path, DEST, DEST, after)).status).toBe(409);
  });

  it('a cancelled claim says so and takes no address', async () => {
    const c = await claimLink();
    expect((await call('POST', `/refunds/${c.id}/cancel/`, { body: {} })).status).toBe(200);
    const shown = await page('GET', c.path);
    expect([shown.status, stateOf(shown.body), shown.body.includes(t.cancelled)]).toEqual([200, 'cancelled', true]);
    const refused = await submit(c.path, DEST);
    expect([refused.status, stateOf(refused.body)]).toEqual([409, 'cancelled']);
    expect(await refundOf(c.id)).toMatchObject({ status: 'cancelled', address: null });
  });

  it('too many requests from one client address: 429 with Retry-After, the refund untouched', async () => {
    const c = await claimLink();
    const strict = { ...deps, limiter: clientRateLimiter(1) };
    expect((await page('GET', c.path, {}, undefined, strict)).status).toBe(200);
    const res = await page('POST', c.path, form({ address: DEST, address_confirmation: DEST }), undefined, strict);
    expect([res.status, Number(res.headers['Retry-After']) > 0, res.body.includes(t.tooManyTitle)]).toEqual([429, true, true]);
    expect(await refundOf(c.id)).toMatchObject({ status: 'awaiting_address', address: null });
  });

  it('other methods: 405 with Allow', async () => {
    const c = await claimLink();
    const res = await page('PUT', c.path);
    expect([res.status, res.headers.Allow]).toEqual([405, 'GET, HEAD, POST']);
  });
});
