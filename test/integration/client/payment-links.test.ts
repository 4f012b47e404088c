// The client's source in this repository (the package's build may predate these endpoints): the types are this
// repository's generated schema, as the package is built from it.
import { createGatewayClient } from '../../../clients/typescript/src/index.js';
import { API_FUNCTIONS } from '../../../infra/definition.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import { apiGroupHandlers } from '../../support/api-groups.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { putFixedRates, servingEth } from '../payments/support.js';

/**
 * The TypeScript client's payment-link endpoints against the local API over real HTTP (the auth and payment-links
 * Lambdas' pipelines on DynamoDB Local, serving ETH): a link created, read and its payments listed with typed calls,
 * the POST carrying the client's own Idempotency-Key.
 */
let stack: TestStack;
let groups: ReturnType<typeof apiGroupHandlers> | undefined;

beforeAll(async () => {
  const served = ['auth', 'payment-links'];
  stack = await startTestStack(
    { http: true, pollers: false },
    {
      httpFunctions: API_FUNCTIONS.filter((f) => served.includes(f.name)).map((f) => ({
        name: f.name,
        routes: f.routes,
        handler: (event, context) => {
          groups ??= apiGroupHandlers(servingEth());
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

it('creates a payment link, reads it and lists its payments with typed calls', async () => {
  const made = await createTenant({ name: 'Client links' }, tenantsRuntime());
  const seen: { method: string; path: string; key: string | null }[] = [];
  const gw = createGatewayClient(
    { baseUrl: stack.apiUrl, clientId: made.clientId, clientSecret: made.clientSecret },
    {
      retryDelayMs: 10,
      fetch: (request) => {
        seen.push({ method: request.method, path: new URL(request.url).pathname, key: request.headers.get('idempotency-key') });
        return fetch(request);
      },
    },
  );
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
  expect(seen.find((s) => s.method === 'POST' && s.path === '/payment-links/')?.key).toMatch(/\S{16,}/);
});
