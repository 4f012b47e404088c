import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { paymentRoutes } from '../../../functions/payments/routes.js';
import { userRoutes } from '../../../functions/user/routes.js';
import { webhookRoutes, type WebhookDeps } from '../../../functions/user/webhook-routes.js';
import { createApi } from '../../../shared/http/pipeline.js';
import type { AnyRoute } from '../../../shared/http/route.js';
import { authRuntime } from '../../../shared/runtime/auth.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { userRuntime, type UserGroupPorts } from '../../../shared/runtime/user.js';
import { webhooksRuntime } from '../../../shared/runtime/webhooks.js';
import { randomSecret, sha256Hex, tenantNamedBy, tenantSecret } from '../../../shared/security/secrets.js';
import { describeWave, traceCalls, waves, type CallTrace, type TracedCall } from '../../../shared/store/call-trace.js';
import { deleteAccessToken, putAccessToken, revokeApiKey } from '../../../shared/store/credentials.js';
import { setTenantStatus, updateTenantSettings } from '../../../shared/store/tenants.js';
import { readUsage } from '../../../shared/store/usage.js';
import { clientAuthFrom, issueToken } from '../../../shared/usecases/auth/issue-token.js';
import { createApiKey } from '../../../shared/usecases/tenants/api-keys.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { fakeSecretBox } from '../../support/fakes/webhooks.js';
import { apiEvent, lambdaContext } from '../../unit/http/event.js';
import { servingEth, putFixedRates } from '../payments/support.js';

/**
 * DynamoDB round trips of authenticated requests, counted on the real document client against DynamoDB Local: a
 * middleware records when each table call starts and ends (an event counter, not a clock), and overlapping calls
 * make one round trip. Before a route's own work a request makes at most two: its credential and tenant in one
 * BatchGetItem, then the rate windows and usage in one UpdateItem. And a revoked credential, a suspended tenant or
 * an address off the allow-list is refused on the very next request, writing nothing.
 */
let table: TestTable;
let trace: CallTrace;
/** Where on the trace's counter the route's own work began (Infinity: it never did). */
let routeStarted = Infinity;
let user: ReturnType<typeof createApi>;
let payments: ReturnType<typeof createApi>;

interface Tenant {
  readonly tenantId: string;
  readonly clientId: string;
  readonly bearer: string;
  readonly apiKey: string;
  readonly keyId: string;
}

/** The routes, each marking the trace when its own work begins. */
const marked = <D>(routes: readonly AnyRoute<D>[]): AnyRoute<D>[] =>
  routes.map((r) => ({
    ...r,
    handle: (req, deps) => {
      routeStarted = trace.mark();
      return r.handle(req, deps);
    },
  }));

async function newTenant(name: string): Promise<Tenant> {
  const made = await createTenant({ name }, tenantsRuntime());
  const { access_token: bearer } = await issueToken(
    { grant_type: 'client_credentials' },
    clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret }),
    new Date(),
    authRuntime(),
  );
  const { key, apiKey } = await createApiKey({ tenant_id: made.tenant.id, name: 'Round trips' }, tenantsRuntime());
  return { tenantId: made.tenant.id, clientId: made.clientId, bearer, apiKey, keyId: key.id };
}

interface Measured {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read loosely
  readonly body: any;
  readonly headers: Record<string, string>;
  /** The round trips before the route's own work (all of them when the route never ran), each as `describeWave` says. */
  readonly before: string[];
  /** Every round trip of the request. */
  readonly all: string[];
  readonly calls: readonly TracedCall[];
}

async function send(
  handler: ReturnType<typeof createApi>,
  method: string,
  path: string,
  credential: { bearer?: string; apiKey?: string },
  body?: unknown,
): Promise<Measured> {
  const headers: Record<string, string> = {};
  if (credential.bearer) headers.authorization = `Bearer ${credential.bearer}`;
  if (credential.apiKey) headers['x-api-key'] = credential.apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  trace.reset();
  routeStarted = Infinity;
  const res = (await handler(
    apiEvent(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
    lambdaContext,
  )) as APIGatewayProxyStructuredResultV2 & { body?: string; headers: Record<string, string> };
  const calls = [...trace.calls()];
  return {
    status: res.statusCode ?? 0,
    body: res.body ? JSON.parse(res.body) : null,
    headers: res.headers,
    before: waves(calls.filter((c) => c.start < routeStarted)).map(describeWave),
    all: waves(calls).map(describeWave),
    calls,
  };
}

const writes = (m: Measured) => m.calls.filter((c) => !/^(Get|BatchGet|Query|TransactGet)/.test(c.command));
const requestsToday = async (tenantId: string) => (await readUsage(tenantId, new Date())).requests_today;

beforeAll(async () => {
  table = await startTestTable();
  await putFixedRates();
  const cfg = servingEth();
  user = createApi(marked<UserGroupPorts & WebhookDeps>([...userRoutes, ...webhookRoutes]), {
    ...userRuntime(),
    ...webhooksRuntime(cfg),
    webhookSecrets: fakeSecretBox,
  });
  payments = createApi(marked(paymentRoutes), paymentsRuntime(cfg));
  trace = traceCalls();
});

afterAll(async () => {
  trace?.stop();
  await table?.stop();
});

describe('round trips before the route', () => {
  it('GET /user/me/: the token and its tenant in one BatchGetItem, then one UpdateItem; the route reads in one more', async () => {
    const t = await newTenant('Round trips me');
    const me = await send(user, 'GET', '/user/me/', { bearer: t.bearer });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(t.tenantId);
    expect(me.before).toEqual(['BatchGetItem', 'UpdateItem']);
    expect(me.all).toHaveLength(3);
    expect(me.headers).toMatchObject({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '999' });
  });

  it('POST /payments/: two round trips before the route, whose work is the rates and the creation transaction', async () => {
    const t = await newTenant('Round trips payments');
    const made = await send(payments, 'POST', '/payments/', { bearer: t.bearer }, { amount: '25', currency: 'USDTERC20' });
    expect(made.status).toBe(201);
    expect(made.before).toEqual(['BatchGetItem', 'UpdateItem']);
    expect(made.all).toEqual(['BatchGetItem', 'UpdateItem', 'GetItem', 'TransactWriteItems']);
  });

  it('an API key (X-API-Key) too: its lookup item and its tenant in one BatchGetItem, then one UpdateItem', async () => {
    const t = await newTenant('Round trips key');
    const hooks = await send(user, 'GET', '/user/webhooks/', { apiKey: t.apiKey });
    expect(hooks.status).toBe(200);
    expect(hooks.before).toEqual(['BatchGetItem', 'UpdateItem']);
  });

  it('new tokens and API keys name their tenant; other strings name none', async () => {
    const t = await newTenant('Round trips named');
    expect(t.bearer).toMatch(/^gat_[\w-]{65}$/);
    expect(t.apiKey).toMatch(/^gak_[\w-]{65}$/);
    expect(tenantNamedBy(t.bearer)).toBe(t.tenantId);
    expect(tenantNamedBy(t.apiKey)).toBe(t.tenantId);
    expect(tenantNamedBy(randomSecret('gat_', 32))).toBeNull();
    expect(tenantNamedBy('gat_not-a-token')).toBeNull();
  });

  it('a token made before tokens named their tenant: three round trips the first time in this instance, then two', async () => {
    const t = await newTenant('Round trips unnamed');
    const unnamed = randomSecret('gat_', 32);
    await putAccessToken({
      tokenHash: sha256Hex(unnamed),
      tenantId: t.tenantId,
      clientId: t.clientId,
      scopes: ['read', 'write'],
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });
    const first = await send(user, 'GET', '/user/me/', { bearer: unnamed });
    expect([first.status, first.body.id]).toEqual([200, t.tenantId]);
    expect(first.before).toEqual(['GetItem', 'GetItem', 'UpdateItem']);
    const second = await send(user, 'GET', '/user/me/', { bearer: unnamed });
    expect(second.status).toBe(200);
    expect(second.before).toEqual(['BatchGetItem', 'UpdateItem']);

    // What this instance remembers is only which tenant the token belongs to: suspension and revocation still apply.
    await setTenantStatus(t.tenantId, 'suspended');
    const suspended = await send(user, 'GET', '/user/me/', { bearer: unnamed });
    expect([suspended.status, suspended.body.error.code]).toEqual([403, 'account_suspended']);
    await setTenantStatus(t.tenantId, 'active');
    expect((await send(user, 'GET', '/user/me/', { bearer: unnamed })).status).toBe(200);
    await deleteAccessToken(sha256Hex(unnamed), t.clientId);
    const revoked = await send(user, 'GET', '/user/me/', { bearer: unnamed });
    expect([revoked.status, revoked.body.error.code]).toEqual([401, 'authentication_failed']);
  });

  it("the tenant a token names is only a guess: the token's own item decides", async () => {
    const a = await newTenant('Round trips guess A');
    const b = await newTenant('Round trips guess B');
    // A token string naming A whose item says B (no token is ever made so; the item is written by hand).
    const misnamed = tenantSecret('gat_', a.tenantId);
    await putAccessToken({
      tokenHash: sha256Hex(misnamed),
      tenantId: b.tenantId,
      clientId: b.clientId,
      scopes: ['read'],
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });
    const me = await send(user, 'GET', '/user/me/', { bearer: misnamed });
    expect([me.status, me.body.id]).toEqual([200, b.tenantId]);
    expect(me.before).toEqual(['BatchGetItem', 'GetItem', 'UpdateItem']);
  });
});

describe('refusals on the very next request, in one round trip, writing nothing', () => {
  it('a revoked token is 401 on the next request', async () => {
    const t = await newTenant('Revoked token');
    expect((await send(user, 'GET', '/user/me/', { bearer: t.bearer })).status).toBe(200);
    await deleteAccessToken(sha256Hex(t.bearer), t.clientId);
    const refused = await send(user, 'GET', '/user/me/', { bearer: t.bearer });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'authentication_failed', message: 'The access token is invalid or has expired.' });
    expect(refused.all).toEqual(['BatchGetItem']);
    expect(writes(refused)).toEqual([]);
  });

  it('a revoked API key is 401 on the next request', async () => {
    const t = await newTenant('Revoked key');
    expect((await send(user, 'GET', '/user/webhooks/', { apiKey: t.apiKey })).status).toBe(200);
    await revokeApiKey(t.tenantId, t.keyId);
    const refused = await send(user, 'GET', '/user/webhooks/', { apiKey: t.apiKey });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'authentication_failed', message: 'The API key is invalid or has been revoked.' });
    expect(writes(refused)).toEqual([]);
  });

  it('a suspended tenant is 403 on the next request (token and API key), uncounted, and served again once active', async () => {
    const t = await newTenant('Suspended');
    expect((await send(user, 'GET', '/user/me/', { bearer: t.bearer })).status).toBe(200);
    const counted = await requestsToday(t.tenantId);
    await setTenantStatus(t.tenantId, 'suspended');
    for (const credential of [{ bearer: t.bearer }, { apiKey: t.apiKey }]) {
      const refused = await send(user, 'GET', '/user/webhooks/', credential);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'account_suspended',
        message: 'This account is suspended; contact support.',
        details: { status: 'suspended' },
      });
      expect(refused.all).toEqual(['BatchGetItem']);
      expect(writes(refused)).toEqual([]);
    }
    expect(await requestsToday(t.tenantId)).toBe(counted);
    await setTenantStatus(t.tenantId, 'active');
    expect((await send(user, 'GET', '/user/me/', { bearer: t.bearer })).status).toBe(200);
  });

  it('an address off the allow-list is 403 on the next request, uncounted', async () => {
    const t = await newTenant('Allow-listed');
    await updateTenantSettings(t.tenantId, { is_ip_whitelist_enabled: true, ip_whitelist: ['198.51.100.0/24'] });
    const refused = await send(user, 'GET', '/user/me/', { bearer: t.bearer });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'ip_not_allowed']);
    expect(writes(refused)).toEqual([]);
    expect(await requestsToday(t.tenantId)).toBe(0);
    await updateTenantSettings(t.tenantId, { ip_whitelist: ['203.0.113.0/24'] });
    expect((await send(user, 'GET', '/user/me/', { bearer: t.bearer })).status).toBe(200);
  });

  it('a token naming a tenant but unknown is 401, whatever tenant it names', async () => {
    const t = await newTenant('Forged');
    const forged = await send(user, 'GET', '/user/me/', { bearer: tenantSecret('gat_', t.tenantId) });
    expect([forged.status, forged.body.error.code]).toEqual([401, 'authentication_failed']);
    expect(writes(forged)).toEqual([]);
    const garbage = await send(user, 'GET', '/user/me/', { bearer: 'gat_not-a-token' });
    expect([garbage.status, garbage.all]).toEqual([401, ['GetItem']]);
  });
});

describe('rate limits in the same two round trips', () => {
  it('over the hourly request limit: 429 with Retry-After and X-RateLimit-*', async () => {
    const t = await newTenant('Limited');
    await updateTenantSettings(t.tenantId, { requests_per_hour: 2 });
    const answers: Measured[] = [];
    for (let i = 0; i < 3; i++) answers.push(await send(user, 'GET', '/user/me/', { bearer: t.bearer }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    const limited = answers[2] as Measured;
    expect(limited.all).toEqual(['BatchGetItem', 'UpdateItem']);
    expect(limited.body.error.code).toBe('rate_limit_exceeded');
    expect(limited.headers).toMatchObject({ 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '0' });
    expect(Number(limited.headers['Retry-After'])).toBeGreaterThan(0);
    expect(Number(limited.headers['X-RateLimit-Reset'])).toBeGreaterThan(Date.now() / 1000);
  });

  it('over the hourly payment creations: 429 before the route, which never runs', async () => {
    const t = await newTenant('Busy creator');
    await updateTenantSettings(t.tenantId, { payment_creations_per_hour: 1 });
    const body = { amount: '20', currency: 'USDTERC20' };
    expect((await send(payments, 'POST', '/payments/', { bearer: t.bearer }, body)).status).toBe(201);
    const refused = await send(payments, 'POST', '/payments/', { bearer: t.bearer }, body);
    expect(refused.status).toBe(429);
    expect(refused.all).toEqual(['BatchGetItem', 'UpdateItem']);
    expect(refused.headers).toMatchObject({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '998' });
  });
});
