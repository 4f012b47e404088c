import { createGatewayClient } from '@gateway/client';
import type { FetchLike, GatewayClient } from '@gateway/client';
import { KMSClient } from '@aws-sdk/client-kms';
import { API_FUNCTIONS } from '../../../infra/definition.js';
import { KmsSigner } from '../../../shared/chain/signer/kms-signer.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import { apiGroupHandlers } from '../../support/api-groups.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { putFixedRates, servingEth } from '../payments/support.js';

/**
 * '@gateway/client' against the local API over real HTTP (the stack's API Gateway stand-in; the auth, payments,
 * withdrawals, payment-links and subscriptions Lambdas' pipelines on DynamoDB Local and the stack's KMS, with a configuration serving ETH): OAuth client credentials,
 * typed calls, pagination, a POST whose answer is lost retried with one Idempotency-Key, and the error envelope.
 */
let stack: TestStack;
/** A collector address configured (never called: a subscription's setup is encoded without the chain). */
const COLLECTOR = '0x5555555555555555555555555555555555555555';
let groups: ReturnType<typeof apiGroupHandlers> | undefined;

beforeAll(async () => {
  const served = ['auth', 'payments', 'withdrawals', 'payment-links', 'subscriptions'];
  stack = await startTestStack(
    { http: true, pollers: false },
    {
      httpFunctions: API_FUNCTIONS.filter((f) => served.includes(f.name)).map((f) => ({
        name: f.name,
        routes: f.routes,
        // The handlers' configuration is read once the stack has set the environment.
        handler: (event, context) => {
          groups ??= apiGroupHandlers(servingEth({ SUBSCRIPTION_COLLECTOR_CONTRACT: COLLECTOR }));
          return (groups[f.name] as NonNullable<(typeof groups)[string]>)(event, context);
        },
      })),
    },
  );
  await putFixedRates();
});

afterAll(async () => {
  await stack?.stop();
});

/** The stack's KMS (its endpoint and credentials are in the environment the stack set). */
const localKms = () => new KMSClient({ region: process.env.AWS_REGION ?? 'us-east-1' });

/** A new tenant's client (OAuth client credentials), sending through `fetch` when given; its API key beside. */
async function tenantClient(name: string, fetch?: FetchLike): Promise<{ gw: GatewayClient; apiKey: string }> {
  const made = await createTenant({ name }, tenantsRuntime());
  const gw = createGatewayClient(
    { baseUrl: stack.apiUrl, clientId: made.clientId, clientSecret: made.clientSecret },
    { retryDelayMs: 10, ...(fetch ? { fetch } : {}) },
  );
  return { gw, apiKey: made.apiKey };
}

/** The global fetch, recording each request's method, path and Idempotency-Key. */
function recordingFetch(): { fetch: FetchLike; seen: { method: string; path: string; key: string | null }[] } {
  const seen: { method: string; path: string; key: string | null }[] = [];
  return {
    seen,
    fetch: (request) => {
      seen.push({ method: request.method, path: new URL(request.url).pathname, key: request.headers.get('idempotency-key') });
      return fetch(request);
    },
  };
}

const order = { amount: '25', currency: 'USDTERC20' };

describe('@gateway/client against the local API', () => {
  it('creates a payment link, reads it and lists its payments with typed calls', async () => {
    const recorded = recordingFetch();
    const { gw } = await tenantClient('Client links', recorded.fetch);
    const created = await gw.POST('/payment-links/', { body: { name: 'Poster', amount: '12', currencies: ['USDTERC20', 'ETH'], max_completions: 3 } });
    expect([created.response.status, created.error]).toEqual([201, undefined]);
    const id: string = created.data?.id ?? '';
    const read = await gw.GET('/payment-links/{link_id}/', { params: { path: { link_id: id } } });
    expect(read.data).toMatchObject({ id, name: 'Poster', status: 'active', completed_count: 0, max_completions: 3, currencies: ['USDTERC20', 'ETH'] });
    const payments = await gw.GET('/payment-links/{link_id}/payments/', { params: { path: { link_id: id } } });
    expect(payments.data).toEqual({ results: [], next_cursor: null });
    const refused = await gw.POST('/payment-links/', { body: { name: 'Poster', currencies: ['USDTERC20'] } });
    expect([refused.response.status, refused.error?.error.code]).toEqual([400, 'invalid_request']);
    // The POST carried the client's own Idempotency-Key.
    expect(recorded.seen.find((s) => s.method === 'POST' && s.path === '/payment-links/')?.key).toMatch(/\S{16,}/);
  });

  it("creates a pull subscription whose setup names the collector, the caps and the hot wallet's address read from KMS", async () => {
    const { gw } = await tenantClient('Client pull');
    const plan = await gw.POST('/plans/', { body: { name: 'Monthly', amount: '12.5', currency: 'USDTERC20', interval: 'month' } });
    const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    // A variable, not a literal: the installed client may be built from a schema before wallet_address (its types
    // follow clients/typescript/src/schema.ts once rebuilt).
    const body = { plan_id: plan.data?.id ?? '', customer_reference: 'c1', collection: 'pull' as const, wallet_address: wallet };
    const created = await gw.POST('/subscriptions/', { body });
    expect([created.response.status, created.error]).toEqual([201, undefined]);
    expect(created.data).toMatchObject({ status: 'incomplete', collection: 'pull' });
    const setup = created.data?.setup as unknown as Record<string, unknown> & { calls: Record<string, { to: string; data: string }> };
    expect(setup).toMatchObject({
      network: 'ETH',
      chain_id: 1,
      collector: COLLECTOR,
      subscriber: wallet,
      per_charge_cap: '12500000',
      per_period_cap: '12500000',
    });
    expect(setup.payee).toBe(await new KmsSigner(localKms(), process.env.HOT_WALLET_KEY_ID ?? '').getAddress());
    expect(setup.calls.approve?.to).toBe(setup.token);
    expect(setup.calls.authorize).toEqual({ to: COLLECTOR, data: expect.stringMatching(/^0x[0-9a-f]{520}$/) as string });
    const refused = await gw.POST('/subscriptions/', { body: { plan_id: plan.data?.id ?? '', customer_reference: 'c1', collection: 'pull' } });
    expect([refused.response.status, refused.error?.error.code]).toEqual([400, 'invalid_request']);
  });

  it('creates a payment with a typed call, authenticated by client credentials', async () => {
    const recorded = recordingFetch();
    const { gw } = await tenantClient('Client typed create', recorded.fetch);
    const { data, error, response } = await gw.POST('/payments/', { body: { ...order, order_id: 'order-1' } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    const id: string | undefined = data?.transaction_id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data).toMatchObject({ currency: 'USDTERC20', order_id: 'order-1', price_amount: '25' });

    const read = await gw.GET('/payments/{transaction_id}/', { params: { path: { transaction_id: id as string } } });
    expect(read.data?.transaction_id).toBe(id);
    expect(recorded.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /o/token/', 'POST /payments/', `GET /payments/${id}/`]);
  });

  it('paginates every payment exactly once over several pages, by offset and by page numbers', async () => {
    const recorded = recordingFetch();
    const { gw } = await tenantClient('Client pagination', recorded.fetch);
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { data } = await gw.POST('/payments/', { body: { ...order, order_id: `order-${i}` } });
      created.push(data?.transaction_id as string);
    }
    const byOffset: string[] = [];
    for await (const payment of gw.paginate('/payments/', { query: { limit: 3 } })) byOffset.push(payment.transaction_id);
    expect(byOffset.sort()).toEqual([...created].sort());
    expect(recorded.seen.filter((s) => s.method === 'GET' && s.path === '/payments/')).toHaveLength(3);

    const byPage: string[] = [];
    for await (const payment of gw.paginate('/payments/', { query: { page_size: 3 } })) byPage.push(payment.transaction_id);
    expect(byPage.sort()).toEqual([...created].sort());
    expect(recorded.seen.filter((s) => s.method === 'GET' && s.path === '/payments/')).toHaveLength(6);
  });

  it('retries a POST whose answer is lost with the same Idempotency-Key: one payment exists afterwards', async () => {
    const recorded = recordingFetch();
    let lost = 0;
    // The gateway receives and performs the request; its answer never reaches the client, as on a dropped connection.
    const losingFetch: FetchLike = async (request) => {
      const response = await recorded.fetch(request);
      if (request.method === 'POST' && new URL(request.url).pathname === '/payments/' && lost === 0) {
        lost++;
        await response.arrayBuffer();
        throw new TypeError('fetch failed: the connection was reset');
      }
      return response;
    };
    const { gw } = await tenantClient('Client lost answer', losingFetch);
    const { data, response } = await gw.POST('/payments/', { body: order });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');

    const posts = recorded.seen.filter((s) => s.method === 'POST' && s.path === '/payments/');
    expect(posts).toHaveLength(2);
    expect(posts[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]?.key).toBe(posts[0]?.key);

    const all: string[] = [];
    for await (const payment of gw.paginate('/payments/', { query: { limit: 100 } })) all.push(payment.transaction_id);
    expect(all).toEqual([data?.transaction_id]);
  });

  it('returns a 4xx as the typed error envelope, not retried', async () => {
    const recorded = recordingFetch();
    const { gw } = await tenantClient('Client errors', recorded.fetch);
    const unknown = await gw.POST('/payments/', { body: { amount: '25', currency: 'NOPECOIN' } });
    expect(unknown.data).toBeUndefined();
    expect(unknown.response.status).toBe(422);
    const code: string | undefined = unknown.error?.error.code;
    expect(code).toBe('invalid_currency');
    expect(unknown.error?.error.details).toHaveProperty('supported_currencies');

    const invalid = await gw.POST('/payments/', { body: { currency: 'USDTERC20', expiry_minutes: 5000 } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.error.code).toBe('invalid_request');
    expect(recorded.seen.filter((s) => s.method === 'POST' && s.path === '/payments/')).toHaveLength(2);
  });

  it('authenticates with an API key where the interface accepts one', async () => {
    const { apiKey } = await tenantClient('Client API key');
    const gw = createGatewayClient({ baseUrl: stack.apiUrl, apiKey });
    const { data, response } = await gw.GET('/withdrawal/');
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ withdrawals: [], total: 0 });
  });
});
