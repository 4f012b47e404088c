import { jest } from '@jest/globals';
import { createGatewayClient, GatewayAuthError, GatewayListError, retryAfterMs } from '@gateway/client';
import type { RetryInfo } from '@gateway/client';

/** The client over a fake fetch: tokens, retries with one Idempotency-Key, and every list shape of the interface. */

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: Headers;
  readonly body: string;
}

type Answer = Response | Error;
type Handler = (seen: Seen, n: number) => Answer | Promise<Answer>;

const BASE = 'https://gateway.test';
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const envelope = (code: string, message = code): { error: { code: string; message: string; details: object } } => ({ error: { code, message, details: {} } });

/** A fetch that records every request and answers tokens itself; `handler` answers the rest (n counts them from 1). */
function fakeFetch(handler: Handler, token: { expiresIn?: number; status?: number } = {}) {
  const seen: Seen[] = [];
  let tokens = 0;
  let calls = 0;
  const fetch = jest.fn(async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const entry: Seen = {
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      body: request.body ? await request.text() : '',
    };
    seen.push(entry);
    if (url.pathname === '/o/token/') {
      tokens++;
      await Promise.resolve();
      if (token.status && token.status !== 200) return json(token.status, { error: 'invalid_client' });
      return json(200, { access_token: `tok-${tokens}`, token_type: 'Bearer', expires_in: token.expiresIn ?? 3600, scope: 'read write' });
    }
    const answer = await handler(entry, ++calls);
    if (answer instanceof Error) throw answer;
    return answer;
  });
  const api = (): Seen[] => seen.filter((s) => s.path !== '/o/token/');
  return { fetch, seen, api, tokenRequests: () => seen.filter((s) => s.path === '/o/token/') };
}

const credentials = { baseUrl: BASE, clientId: 'client-1', clientSecret: 'secret-1' };
const payment = { amount: '25', currency: 'USDTPOLYGON' };
const created = { transaction_id: 'p-1', status: 'waiting', amount: '25' };

describe('the client: tokens', () => {
  afterEach(() => jest.restoreAllMocks());

  it('fetches one token through the given fetch, shared by concurrent calls and cached for the next ones', async () => {
    const fake = fakeFetch(() => json(200, { currencies: ['USDTPOLYGON'] }));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    await Promise.all([1, 2, 3, 4, 5].map(() => gw.GET('/currencies/')));
    await gw.GET('/currencies/');
    expect(fake.tokenRequests()).toHaveLength(1);
    expect(JSON.parse(fake.tokenRequests()[0]?.body ?? '{}')).toEqual({ grant_type: 'client_credentials', client_id: 'client-1', client_secret: 'secret-1' });
    expect(fake.api()).toHaveLength(6);
    expect(fake.api().every((s) => s.headers.get('authorization') === 'Bearer tok-1')).toBe(true);
  });

  it('renews the token shortly before it expires, not after', async () => {
    let now = 1_700_000_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const fake = fakeFetch(() => json(200, { currencies: [] }), { expiresIn: 3600 });
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    await gw.GET('/currencies/');
    now += 3_500_000; // 100 s before expiry: still good
    await gw.GET('/currencies/');
    expect(fake.tokenRequests()).toHaveLength(1);
    now += 50_000; // 50 s before expiry: within the renewal minute
    await gw.GET('/currencies/');
    expect(fake.tokenRequests()).toHaveLength(2);
    expect(fake.api().map((s) => s.headers.get('authorization'))).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
  });

  it('fetches a new token and tries once more when a cached token is refused with 401', async () => {
    const fake = fakeFetch((seen) =>
      seen.headers.get('authorization') === 'Bearer tok-1' && fake.api().length > 1
        ? json(401, envelope('authentication_failed'))
        : json(200, { currencies: [] }),
    );
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    await gw.GET('/currencies/');
    const { response } = await gw.GET('/currencies/');
    expect(response.status).toBe(200);
    expect(fake.api().map((s) => s.headers.get('authorization'))).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
  });

  it('throws GatewayAuthError when the token endpoint refuses the credentials', async () => {
    const fake = fakeFetch(() => json(200, {}), { status: 401 });
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    await expect(gw.GET('/currencies/')).rejects.toBeInstanceOf(GatewayAuthError);
    expect(fake.tokenRequests()).toHaveLength(1);
    expect(fake.api()).toHaveLength(0);
  });

  it('sends an API key as X-API-Key, with no token request', async () => {
    const fake = fakeFetch(() => json(200, { withdrawals: [], total: 0 }));
    const gw = createGatewayClient({ baseUrl: BASE, apiKey: 'key-1' }, { fetch: fake.fetch });
    await gw.GET('/withdrawal/');
    expect(fake.tokenRequests()).toHaveLength(0);
    expect(fake.api()[0]?.headers.get('x-api-key')).toBe('key-1');
    expect(fake.api()[0]?.headers.get('authorization')).toBeNull();
  });
});

describe('the client: retries', () => {
  const fast = { retryDelayMs: 1 };

  const keysOf = (seen: readonly Seen[]): (string | null)[] => seen.map((s) => s.headers.get('idempotency-key'));

  it('retries a POST answered 503 with the same Idempotency-Key and the same body', async () => {
    const fake = fakeFetch((_, n) => (n === 1 ? json(503, envelope('service_unavailable')) : json(201, created)));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch, ...fast });
    const { data, response } = await gw.POST('/payments/', { body: payment });
    expect(response.status).toBe(201);
    expect(data?.transaction_id).toBe('p-1');
    const [first, second] = keysOf(fake.api());
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    expect(fake.api().map((s) => JSON.parse(s.body))).toEqual([payment, payment]);
  });

  it('retries a POST whose answer was lost (network error) with the same key', async () => {
    const fake = fakeFetch((_, n) => (n === 1 ? new TypeError('fetch failed') : json(201, created)));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch, ...fast });
    const { response } = await gw.POST('/payments/', { body: payment });
    expect(response.status).toBe(201);
    expect(fake.api()).toHaveLength(2);
    expect(new Set(keysOf(fake.api())).size).toBe(1);
  });

  it('waits the Retry-After of a 429 (seconds or a date) before retrying with the same key', async () => {
    const retries: RetryInfo[] = [];
    const fake = fakeFetch((_, n) => (n === 1 ? json(429, envelope('rate_limit_exceeded'), { 'Retry-After': '1' }) : json(201, created)));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch, ...fast, onRetry: (r) => retries.push(r) });
    const { response } = await gw.POST('/payments/', { body: payment });
    expect(response.status).toBe(201);
    expect(retries.map((r) => [r.retry, r.status, r.delayMs])).toEqual([[1, 429, 1000]]);
    expect(new Set(keysOf(fake.api())).size).toBe(1);
    expect(retryAfterMs(new Date(1_000_000 + 30_000).toUTCString(), 1_000_000)).toBe(30_000);
    expect(retryAfterMs('soon')).toBeNull();
  });

  it('keeps the caller’s Idempotency-Key on every attempt', async () => {
    const fake = fakeFetch((_, n) => (n < 3 ? json(502, {}) : json(201, created)));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch, ...fast });
    await gw.POST('/payments/', { body: payment, params: { header: { 'Idempotency-Key': 'order-42' } } });
    expect(keysOf(fake.api())).toEqual(['order-42', 'order-42', 'order-42']);
  });

  it('retries a 409 idempotency_conflict (the first attempt still running), and no other 409', async () => {
    const fake = fakeFetch((_, n) =>
      n === 1 ? json(409, envelope('idempotency_conflict')) : n === 2 ? json(201, created) : json(409, envelope('invalid_state')),
    );
    const gw = createGatewayClient(credentials, { fetch: fake.fetch, ...fast });
    expect((await gw.POST('/payments/', { body: payment })).response.status).toBe(201);
    const { error } = await gw.POST('/payments/{transaction_id}/cancel/', { params: { path: { transaction_id: 'p-1' } } });
    expect(error?.error.code).toBe('invalid_state');
    expect(fake.api()).toHaveLength(3);
  });

  it('does not retry a 400, and returns its envelope as error', async () => {
    const fake = fakeFetch(() => json(400, envelope('invalid_request', 'amount is required')));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch, ...fast });
    const { data, error, response } = await gw.POST('/payments/', { body: { currency: 'USDTPOLYGON' } });
    expect(response.status).toBe(400);
    expect(data).toBeUndefined();
    expect(error?.error).toEqual({ code: 'invalid_request', message: 'amount is required', details: {} });
    expect(fake.api()).toHaveLength(1);
  });

  it('gives a GET no Idempotency-Key, and retries it on 504', async () => {
    const fake = fakeFetch((_, n) => (n === 1 ? json(504, {}) : json(200, { currencies: [] })));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch, ...fast });
    const { response } = await gw.GET('/currencies/');
    expect(response.status).toBe(200);
    expect(keysOf(fake.api())).toEqual([null, null]);
  });

  it('stops after maxRetries: the last answer is returned, the last network error thrown', async () => {
    const unavailable = fakeFetch(() => json(503, envelope('service_unavailable')));
    const gw = createGatewayClient(credentials, { fetch: unavailable.fetch, maxRetries: 2, ...fast });
    const { error, response } = await gw.POST('/payments/', { body: payment });
    expect(response.status).toBe(503);
    expect(error?.error.code).toBe('service_unavailable');
    expect(unavailable.api()).toHaveLength(3);

    const down = fakeFetch(() => new TypeError('fetch failed'));
    const gwDown = createGatewayClient(credentials, { fetch: down.fetch, ...fast });
    await expect(gwDown.POST('/payments/', { body: payment })).rejects.toThrow('fetch failed');
    expect(down.api()).toHaveLength(4); // the default maxRetries is 3
    expect(new Set(keysOf(down.api())).size).toBe(1);

    const once = fakeFetch(() => json(503, {}));
    await createGatewayClient(credentials, { fetch: once.fetch, maxRetries: 0 }).GET('/currencies/');
    expect(once.api()).toHaveLength(1);
  });
});

describe('the client: paginate', () => {
  const ids = (n: number, from = 0): { id: string }[] => Array.from({ length: n }, (_, i) => ({ id: `i-${from + i}` }));
  const all = async <T>(iterator: AsyncIterable<T>): Promise<T[]> => {
    const out: T[] = [];
    for await (const item of iterator) out.push(item);
    return out;
  };
  const expected = ids(7).map((i) => i.id);

  it('follows `next` page URLs (page numbers), keeping the filters', async () => {
    const fake = fakeFetch((seen) => {
      const page = Number(seen.query.page ?? '1');
      const next = page < 3 ? `${BASE}/payments/?page_size=3&status=waiting&page=${page + 1}` : null;
      return json(200, { count: 7, next, previous: null, results: ids(page < 3 ? 3 : 1, (page - 1) * 3) });
    });
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    const items = await all(gw.paginate('/payments/', { query: { page_size: 3, status: 'waiting' } }));
    expect(items.map((p) => (p as unknown as { id: string }).id)).toEqual(expected);
    expect(fake.api().map((s) => s.query)).toEqual([
      { page_size: '3', status: 'waiting' },
      { page_size: '3', status: 'waiting', page: '2' },
      { page_size: '3', status: 'waiting', page: '3' },
    ]);
  });

  it('moves the offset by the items received until total (limit/offset), for results and named lists', async () => {
    const offsetPage = (seen: Seen, key: string): Response => {
      const offset = Number(seen.query.offset ?? '0');
      return json(200, { [key]: ids(Math.min(3, 7 - offset), offset), total: 7, limit: 3, offset });
    };
    const payments = fakeFetch((seen) => offsetPage(seen, 'results'));
    const gw = createGatewayClient(credentials, { fetch: payments.fetch });
    expect((await all(gw.paginate('/payments/', { query: { limit: 3 } }))).map((p) => (p as unknown as { id: string }).id)).toEqual(expected);
    expect(payments.api().map((s) => s.query.offset)).toEqual([undefined, '3', '6']);

    const withdrawals = fakeFetch((seen) => offsetPage(seen, 'withdrawals'));
    const gw2 = createGatewayClient(credentials, { fetch: withdrawals.fetch });
    expect(await all(gw2.paginate('/withdrawal/', { query: { limit: 3 } }))).toHaveLength(7);
    expect(withdrawals.api()).toHaveLength(3);
  });

  it('sends back next_cursor as cursor until it is null', async () => {
    const fake = fakeFetch((seen) => {
      const at = Number(seen.query.cursor ?? '0');
      return json(200, { results: ids(Math.min(3, 7 - at), at), next_cursor: at + 3 < 7 ? String(at + 3) : null });
    });
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    expect(await all(gw.paginate('/user/webhooks/deliveries/', { query: { limit: 3 } }))).toEqual(ids(7));
    expect(fake.api().map((s) => s.query)).toEqual([{ limit: '3' }, { limit: '3', cursor: '3' }, { limit: '3', cursor: '6' }]);
  });

  it('prefers the cursor where a page has both (transactions), dropping the offset', async () => {
    const fake = fakeFetch((seen) => {
      const at = Number(seen.query.cursor ?? '0');
      return json(200, { transactions: ids(Math.min(3, 7 - at), at), total: 7, limit: 3, offset: 0, next_cursor: at + 3 < 7 ? String(at + 3) : null });
    });
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    expect(await all(gw.paginate('/transactions/transactions/', { query: { limit: 3, offset: 0 } }))).toHaveLength(7);
    expect(fake.api().map((s) => s.query)).toEqual([
      { limit: '3', offset: '0' },
      { limit: '3', cursor: '3' },
      { limit: '3', cursor: '6' },
    ]);
  });

  it('pages a bare array with skip and limit until a short page', async () => {
    const fake = fakeFetch((seen) => {
      const skip = Number(seen.query.skip ?? '0');
      return json(200, ids(Math.min(3, 7 - skip), skip));
    });
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    expect(await all(gw.paginate('/custody/accounts', { query: { limit: 3 } }))).toEqual(ids(7));
    expect(fake.api().map((s) => s.query.skip)).toEqual([undefined, '3', '6']);
  });

  it('fills path parameters and ends on a single unpaged list', async () => {
    const fake = fakeFetch(() => json(200, { results: ids(2) }));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    expect(await all(gw.paginate('/payments/{transaction_id}/refunds/', { path: { transaction_id: 'p-9' } }))).toHaveLength(2);
    expect(fake.api().map((s) => s.path)).toEqual(['/payments/p-9/refunds/']);
  });

  it('throws GatewayListError with the envelope when a page is refused', async () => {
    const fake = fakeFetch(() => json(400, envelope('invalid_request', 'limit must be at most 100')));
    const gw = createGatewayClient(credentials, { fetch: fake.fetch });
    const failure = await all(gw.paginate('/payments/', { query: { limit: 1000 } })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayListError);
    expect((failure as GatewayListError).status).toBe(400);
    expect((failure as GatewayListError).error?.error.code).toBe('invalid_request');
  });
});
