import { GetCommand } from '@aws-sdk/lib-dynamodb';
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
import { db, tableName } from '../../../shared/store/client.js';
import { deleteAccessToken, putAccessToken, revokeApiKey } from '../../../shared/store/credentials.js';
import { keys } from '../../../shared/store/keys.js';
import { setTenantStatus, updateTenantSettings } from '../../../shared/store/tenants.js';
import { countRequest, hourCounts, readUsage, usageDayKey } from '../../../shared/store/usage.js';
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
 * BatchGetItem, then the rate windows and usage in one UpdateItem; `POST /payments/` reads its usage and the rates
 * in that BatchGetItem and counts itself in its creation transaction, so it makes two round trips in all. And a
 * revoked credential, a suspended tenant or an address off the allow-list is refused on the very next request,
 * writing nothing.
 */
let table: TestTable;
let trace: CallTrace;
/** Where on the trace's counter the route's own work began (Infinity: it never did). */
let routeStarted = Infinity;
/** Run once the route's own work has begun (marked), before the route: what another request did meanwhile. */
let meanwhile: (() => Promise<unknown>) | null = null;
let user: ReturnType<typeof createApi>;
let payments: ReturnType<typeof createApi>;
/** The payments API on a fixed clock, so that every count of a test falls in one hour. */
let creations: ReturnType<typeof createApi>;
const at = new Date();

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
    handle: async (req, deps) => {
      routeStarted = trace.mark();
      await meanwhile?.();
      return r.handle(req, deps);
    },
  }));

/** A bearer token of `t` stored as tokens were before they named their tenant. */
async function unnamedToken(t: Tenant): Promise<string> {
  const unnamed = randomSecret('gat_', 32);
  await putAccessToken({
    tokenHash: sha256Hex(unnamed),
    tenantId: t.tenantId,
    clientId: t.clientId,
    scopes: ['read', 'write'],
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
  });
  return unnamed;
}

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
  credential: { bearer?: string; apiKey?: string; idempotencyKey?: string },
  body?: unknown,
): Promise<Measured> {
  const headers: Record<string, string> = {};
  if (credential.bearer) headers.authorization = `Bearer ${credential.bearer}`;
  if (credential.apiKey) headers['x-api-key'] = credential.apiKey;
  if (credential.idempotencyKey) headers['idempotency-key'] = credential.idempotencyKey;
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
const requestsToday = async (tenantId: string, now = new Date()) => (await readUsage(tenantId, now)).requests_today;
/** The hour's counts of `at` (requests, payment creations) in the tenant's usage item, read without counting. */
const countsOfHour = async (tenantId: string) => {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: usageDayKey(tenantId, at), ConsistentRead: true }));
  const counted = hourCounts(Item ?? null, at, 'payment_creations');
  return { requests: counted.hourRequests, creations: counted.hourBucket };
};
/** The keys a call's BatchGetItem asked for. */
const batchKeys = (call: TracedCall | undefined) =>
  Object.values((call?.input.RequestItems ?? {}) as Record<string, { Keys: { pk: string; sk: string }[] }>).flatMap((r) => r.Keys);

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
  creations = createApi(marked(paymentRoutes), paymentsRuntime(cfg), { clock: () => at });
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

  it('POST /payments/: one BatchGetItem (token, tenant, usage, rates), then the creation transaction, which counts the request', async () => {
    const t = await newTenant('Round trips payments');
    const made = await send(payments, 'POST', '/payments/', { bearer: t.bearer }, { amount: '25', currency: 'USDTERC20' });
    expect(made.status).toBe(201);
    expect(made.before).toEqual(['BatchGetItem']);
    expect(made.all).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(made.calls).toHaveLength(2);
    expect(batchKeys(made.calls[0])).toHaveLength(4);
    expect(batchKeys(made.calls[0])).toEqual(
      expect.arrayContaining([keys.accessToken(sha256Hex(t.bearer)), keys.tenant(t.tenantId), usageDayKey(t.tenantId, new Date()), keys.ratesCurrent]),
    );
    expect(made.headers).toMatchObject({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '999' });
    expect(await requestsToday(t.tenantId)).toBe(1);
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
    const unnamed = await unnamedToken(t);
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

describe('POST /payments/ counts its request in its own transaction', () => {
  const body = { amount: '20', currency: 'USDTERC20' };
  afterEach(() => {
    meanwhile = null;
  });

  it('N creations count exactly N requests and N creations', async () => {
    const t = await newTenant('Counted creations');
    for (let i = 0; i < 5; i++) {
      const made = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, body);
      expect([made.status, made.all]).toEqual([201, ['BatchGetItem', 'TransactWriteItems']]);
      expect(made.headers['X-RateLimit-Remaining']).toBe(String(999 - i));
    }
    expect(await countsOfHour(t.tenantId)).toEqual({ requests: 5, creations: 5 });
    expect((await readUsage(t.tenantId, at)).requests_today).toBe(5);
  });

  it('uses the rates snapshot read in the same request: new rates apply to the very next creation', async () => {
    const t = await newTenant('Fresh rates');
    const priced = { price_amount: '30', price_currency: 'USD', pay_currency: 'ETH' };
    try {
      await putFixedRates(new Date(), { ETH: '3000' });
      const first = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, priced);
      await putFixedRates(new Date(), { ETH: '6000' });
      const second = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, priced);
      expect([first.status, second.status]).toEqual([201, 201]);
      expect([first.body.amount_crypto, second.body.amount_crypto]).toEqual(['0.01000000', '0.00500000']);
      expect(second.all).toEqual(['BatchGetItem', 'TransactWriteItems']);
      expect(batchKeys(second.calls[0])).toContainEqual(keys.ratesCurrent);
    } finally {
      await putFixedRates();
    }
  });

  it('a revoked token or a suspended tenant is refused on the next creation, in one round trip, writing nothing', async () => {
    const t = await newTenant('Creator refused');
    expect((await send(creations, 'POST', '/payments/', { bearer: t.bearer }, body)).status).toBe(201);
    await setTenantStatus(t.tenantId, 'suspended');
    const suspended = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, body);
    expect([suspended.status, suspended.body.error.code, suspended.all, writes(suspended)]).toEqual([403, 'account_suspended', ['BatchGetItem'], []]);
    await setTenantStatus(t.tenantId, 'active');
    expect((await send(creations, 'POST', '/payments/', { bearer: t.bearer }, body)).status).toBe(201);
    await deleteAccessToken(sha256Hex(t.bearer), t.clientId);
    const revoked = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, body);
    expect([revoked.status, revoked.body.error.code, revoked.all, writes(revoked)]).toEqual([401, 'authentication_failed', ['BatchGetItem'], []]);
    expect(await countsOfHour(t.tenantId)).toEqual({ requests: 2, creations: 2 });
  });

  it('refused in the transaction by the creations limit (another creation counted meanwhile): 429 with Retry-After, nothing created', async () => {
    const t = await newTenant('Raced creator');
    await updateTenantSettings(t.tenantId, { payment_creations_per_hour: 2 });
    expect((await send(creations, 'POST', '/payments/', { bearer: t.bearer }, body)).status).toBe(201);
    // Past the pipeline's check (1 of 2 read), another creation takes the last one before this transaction.
    meanwhile = () => countRequest(t.tenantId, at, 'payment_creations');
    const refused = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, body);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', details: { limit: 2 } });
    expect(Number(refused.headers['Retry-After'])).toBeGreaterThan(0);
    expect(refused.headers).toMatchObject({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '997' });
    // The other creation's count, the refused transaction, the day's total read to tell the limit that refused it (the
    // count and the day's total are one item), then this request counted as a refused one always was.
    expect(refused.all).toEqual(['BatchGetItem', 'UpdateItem', 'TransactWriteItems', 'GetItem', 'UpdateItem']);
    expect(await countsOfHour(t.tenantId)).toEqual({ requests: 3, creations: 3 });
    expect(await paymentsRuntime(servingEth()).payments.count(t.tenantId)).toBe(1);
  });

  it('refused for another reason (validation, daily limit before or in the transaction): counted exactly once', async () => {
    const t = await newTenant('Refused creator');
    await updateTenantSettings(t.tenantId, {
      limits: { max_payment_amount: null, daily_payment_limit: '150', max_withdrawal_amount: null, daily_withdrawal_limit: null },
    });
    const invalid = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, { amount: 'lots', currency: 'USDTERC20' });
    expect([invalid.status, invalid.body.error.code, invalid.all]).toEqual([400, 'invalid_request', ['BatchGetItem', 'UpdateItem']]);
    expect(invalid.headers['X-RateLimit-Remaining']).toBe('999');
    expect(await countsOfHour(t.tenantId)).toEqual({ requests: 1, creations: 1 });

    const overAlone = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, { amount: '151', currency: 'USDTERC20' });
    expect([overAlone.status, overAlone.all]).toEqual([400, ['BatchGetItem', 'UpdateItem']]);
    expect((await send(creations, 'POST', '/payments/', { bearer: t.bearer }, { amount: '100', currency: 'USDTERC20' })).status).toBe(201);
    // The day's total refuses this one inside the transaction, which then counts nothing; the total read after tells
    // the daily limit from a rate limit.
    const overTotal = await send(creations, 'POST', '/payments/', { bearer: t.bearer }, { amount: '60', currency: 'USDTERC20' });
    expect([overTotal.status, overTotal.body.error.details.amount, overTotal.all]).toEqual([
      400,
      ['The payment would exceed the daily payment limit of 150 USD.'],
      ['BatchGetItem', 'TransactWriteItems', 'GetItem', 'UpdateItem'],
    ]);
    expect(await countsOfHour(t.tenantId)).toEqual({ requests: 4, creations: 4 });
    expect((await readUsage(t.tenantId, at)).requests_today).toBe(4);
  });

  it('with an Idempotency-Key: the claim, then the transaction that counts; a replay is counted after it', async () => {
    const t = await newTenant('Idempotent creator');
    const keyed = { bearer: t.bearer, idempotencyKey: 'count-once' };
    const first = await send(creations, 'POST', '/payments/', keyed, body);
    expect([first.status, first.all]).toEqual([201, ['BatchGetItem', 'PutItem', 'TransactWriteItems']]);
    const replay = await send(creations, 'POST', '/payments/', keyed, body);
    expect([replay.status, replay.body.transaction_id, replay.headers['Idempotent-Replayed']]).toEqual([201, first.body.transaction_id, 'true']);
    expect(replay.all).toEqual(['BatchGetItem', 'PutItem', 'GetItem', 'UpdateItem']);
    expect(await countsOfHour(t.tenantId)).toEqual({ requests: 2, creations: 2 });
    expect(await paymentsRuntime(servingEth()).payments.count(t.tenantId)).toBe(1);
  });

  it('a token made before tokens named their tenant: counted by its own update the first time, in the transaction after', async () => {
    const t = await newTenant('Unnamed creator');
    const unnamed = await unnamedToken(t);
    const first = await send(creations, 'POST', '/payments/', { bearer: unnamed }, body);
    expect([first.status, first.all]).toEqual([201, ['BatchGetItem', 'GetItem', 'UpdateItem', 'TransactWriteItems']]);
    const second = await send(creations, 'POST', '/payments/', { bearer: unnamed }, body);
    expect([second.status, second.all]).toEqual([201, ['BatchGetItem', 'TransactWriteItems']]);
    expect(await countsOfHour(t.tenantId)).toEqual({ requests: 2, creations: 2 });
  });

  it('concurrent creations at a limit of K: exactly K succeed, every request counted once', async () => {
    const t = await newTenant('Concurrent creators');
    const K = 3;
    const N = 12;
    await updateTenantSettings(t.tenantId, { payment_creations_per_hour: K });
    // Each request goes on to its transaction only once all have passed the pipeline's check (each read 0 of K):
    // what keeps the limit is the transaction's condition alone.
    let arrived = 0;
    let release = () => {};
    const allArrived = new Promise<void>((resolve) => (release = resolve));
    meanwhile = () => {
      if (++arrived === N) release();
      return allArrived;
    };
    const event = apiEvent('POST', '/payments/', {
      headers: { authorization: `Bearer ${t.bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answers = (await Promise.all(Array.from({ length: N }, () => creations(event, lambdaContext)))) as APIGatewayProxyStructuredResultV2[];
    const statuses = answers.map((a) => a.statusCode ?? 0).sort();
    expect(statuses).toEqual([...Array<number>(K).fill(201), ...Array<number>(N - K).fill(429)]);
    expect(await paymentsRuntime(servingEth()).payments.count(t.tenantId)).toBe(K);
    expect(arrived).toBe(N);
    expect(await countsOfHour(t.tenantId)).toEqual({ requests: N, creations: N });
  });
});
