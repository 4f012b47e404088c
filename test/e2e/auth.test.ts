import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ClientCredentials } from 'simple-oauth2';
import { startTestStack, type TestStack } from '../support/stack.js';

/**
 * The foundation end to end over real HTTP: the operator CLI makes a tenant, a standard OAuth 2.0 client
 * library gets a token, and the request pipeline answers as the interface says.
 */
const run = promisify(execFile);

let stack: TestStack;
let tenant: { tenant_id: string; schema_name: string; client_id: string; client_secret: string; api_key: string };

async function cli(...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/gateway.ts', ...args, '--json'], { env: { ...process.env, ...stack.env } });
  return JSON.parse(stdout);
}

async function api(method: string, path: string, init: { token?: string; apiKey?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.apiKey) headers['X-API-Key'] = init.apiKey;
  if (init.body !== undefined) headers['Content-Type'] ??= 'application/json';
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  // Answers are asserted field by field; a loose JSON type keeps those assertions readable.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, any>) : null };
}

async function token(clientId = tenant.client_id, clientSecret = tenant.client_secret, scope?: string): Promise<string> {
  const client = new ClientCredentials({
    client: { id: clientId, secret: clientSecret },
    auth: { tokenHost: stack.apiUrl, tokenPath: '/o/token/', revokePath: '/o/revoke_token/' },
  });
  const access = await client.getToken(scope ? { scope } : {});
  return access.token.access_token as string;
}

beforeAll(async () => {
  stack = await startTestStack({ anvil: false, pollers: false });
  tenant = (await cli('tenant', 'create', '--name', 'Acme')) as typeof tenant;
});

afterAll(async () => {
  await stack?.stop();
});

describe('foundation end to end', () => {
  it("the CLI prints the new tenant's identifiers and one-time secrets", () => {
    expect(Object.keys(tenant).sort()).toEqual(['api_key', 'client_id', 'client_secret', 'schema_name', 'tenant_id']);
    expect(tenant.schema_name).toMatch(/^acme_[0-9a-f]{8}$/);
  });

  it('a standard OAuth 2.0 client gets a token, and /user/me/ answers the tenant record', async () => {
    const access = await token();
    const me = await api('GET', '/user/me/', { token: access });
    expect(me.status).toBe(200);
    expect(me.headers.get('x-request-id')).toBeTruthy();
    expect(me.body).toMatchObject({ id: tenant.tenant_id, name: 'Acme', schema_name: tenant.schema_name, status: 'active', transaction_fee: '1' });
    expect(me.body?.created_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(me.body?.api_usage.requests_today).toBeGreaterThanOrEqual(1);
    const again = await api('GET', '/user/me/', { token: access });
    expect(again.body?.api_usage.requests_today).toBe(me.body?.api_usage.requests_today + 1);
  });

  it("/user/me/ shows the limits that apply, as strings: the platform's defaults until the operator sets the tenant's own", async () => {
    const access = await token();
    const limits = async () => (await api('GET', '/user/me/', { token: access })).body?.limits as Record<string, unknown>;
    const platform = {
      daily_payment_limit: '1000000.00',
      daily_withdrawal_limit: '1000000.00',
      max_payment_amount: '100000.00',
      max_withdrawal_amount: '100000.00',
    };
    expect(await limits()).toEqual(platform);
    await cli('tenant', 'configure', tenant.tenant_id, '--max-payment-amount', '2500', '--daily-withdrawal-limit', '900.50');
    expect(await limits()).toEqual({ ...platform, max_payment_amount: '2500', daily_withdrawal_limit: '900.50' });
    await cli('tenant', 'configure', tenant.tenant_id, '--max-payment-amount', 'default');
    expect(await limits()).toEqual({ ...platform, daily_withdrawal_limit: '900.50' });
    await expect(cli('tenant', 'configure', tenant.tenant_id, '--max-withdrawal-amount', '1e5')).rejects.toThrow(/USD amount/);
    await cli('tenant', 'configure', tenant.tenant_id, '--daily-withdrawal-limit', 'default');
    expect(await limits()).toEqual(platform);
  });

  it('token answers and errors follow RFC 6749, with form or JSON bodies', async () => {
    const form = await fetch(`${stack.apiUrl}/o/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret, scope: 'read' }),
    });
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(await form.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read' });

    const json = await api('POST', '/o/token/', { body: { grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: 'wrong' } });
    expect(json.status).toBe(401);
    expect(json.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });

    const grant = await api('POST', '/o/token/', { body: { grant_type: 'password', client_id: tenant.client_id, client_secret: tenant.client_secret } });
    expect([grant.status, grant.body?.error]).toEqual([400, 'unsupported_grant_type']);

    const scope = await api('POST', '/o/token/', {
      body: { grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret, scope: 'read admin' },
    });
    expect([scope.status, scope.body?.error]).toEqual([400, 'invalid_scope']);
  });

  it('a bad token is 401 authentication_failed; a missing scope is 403 permission_denied with both scope lists', async () => {
    const bad = await api('GET', '/user/me/', { token: 'gat_not-a-token' });
    expect(bad.status).toBe(401);
    expect(bad.body?.error.code).toBe('authentication_failed');
    const none = await api('GET', '/user/me/');
    expect(none.status).toBe(401);

    const readOnly = await token(undefined, undefined, 'read');
    const create = await api('POST', '/o/apps/', { token: readOnly, body: { name: 'x' } });
    expect(create.status).toBe(403);
    expect(create.body?.error).toEqual({
      code: 'permission_denied',
      message: expect.any(String),
      details: { required_scopes: ['read', 'write'], token_scopes: ['read'] },
    });
  });

  it('revocation (RFC 7009) ends a token at once', async () => {
    const access = await token();
    const revoke = await fetch(`${stack.apiUrl}/o/revoke_token/`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${tenant.client_id}:${tenant.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: access }),
    });
    expect(revoke.status).toBe(200);
    expect((await api('GET', '/user/me/', { token: access })).status).toBe(401);
  });

  it("apps carry scopes capped at their creator's; the secret is shown once; deleting an app revokes its tokens", async () => {
    const access = await token();
    const tooMuch = await api('POST', '/o/apps/', { token: access, body: { name: 'Ops', scopes: ['read', 'write', 'admin'] } });
    expect(tooMuch.status).toBe(403);

    const made = await api('POST', '/o/apps/', { token: access, body: { name: 'Reporting', scopes: ['read'] } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'Reporting', scopes: ['read'], client_secret: expect.stringMatching(/^gcs_/) });
    const list = await api('GET', '/o/apps/', { token: access });
    const listed = list.body?.results.find((a: { id: string }) => a.id === made.body?.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('client_secret');

    const appToken = await token(made.body?.client_id, made.body?.client_secret);
    expect((await api('GET', '/user/me/', { token: appToken })).status).toBe(200);
    expect((await api('DELETE', `/o/apps/${made.body?.id}/`, { token: access })).status).toBe(204);
    expect((await api('GET', '/user/me/', { token: appToken })).status).toBe(401);
    expect((await api('DELETE', `/o/apps/${made.body?.id}/`, { token: access })).status).toBe(404);
  });

  it('/v0 paths answer 410, unknown paths 404, wrong methods 405, and /status/ and /openapi.json need no credentials', async () => {
    const v0 = await api('GET', '/v0/payments');
    expect(v0.status).toBe(410);
    expect(v0.body).toMatchObject({ error: 'deprecated_endpoint', request_id: expect.any(String) });
    const unknown = await api('GET', '/nowhere/');
    expect([unknown.status, unknown.body?.error.code]).toEqual([404, 'not_found']);
    const wrong = await api('DELETE', '/user/me/', { token: await token() });
    expect([wrong.status, wrong.body?.error.code]).toEqual([405, 'method_not_allowed']);
    expect((await api('GET', '/status/')).body).toMatchObject({ status: 'ok' });
    const doc = await api('GET', '/openapi.json');
    expect(doc.body?.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body?.paths ?? {})).toEqual(expect.arrayContaining(['/o/token/', '/user/me/', '/status/']));
    const page = await fetch(`${stack.apiUrl}/docs/`);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('X-API-Key is refused where the interface does not allow it', async () => {
    const res = await api('GET', '/user/me/', { apiKey: tenant.api_key });
    expect(res.status).toBe(401);
    expect(res.body?.error.message).toContain('bearer token');
  });

  it('a suspended tenant is refused with a clear message, and served again once activated', async () => {
    const other = (await cli('tenant', 'create', '--name', 'Suspended Co')) as typeof tenant;
    const access = await token(other.client_id, other.client_secret);
    await cli('tenant', 'suspend', other.tenant_id);
    const refused = await api('GET', '/user/me/', { token: access });
    expect(refused.status).toBe(403);
    expect(refused.body?.error).toMatchObject({ code: 'account_suspended', message: expect.stringContaining('suspended') });
    await cli('tenant', 'activate', other.tenant_id);
    expect((await api('GET', '/user/me/', { token: access })).status).toBe(200);
  });

  it('the IP allow-list refuses other source addresses', async () => {
    const other = (await cli('tenant', 'create', '--name', 'Listed')) as typeof tenant;
    const access = await token(other.client_id, other.client_secret);
    await cli('tenant', 'configure', other.tenant_id, '--ip-whitelist', '203.0.113.0/24', '--ip-whitelist-enabled', 'true');
    const refused = await api('GET', '/user/me/', { token: access });
    expect([refused.status, refused.body?.error.code]).toEqual([403, 'ip_not_allowed']);
    await cli('tenant', 'configure', other.tenant_id, '--ip-whitelist', '127.0.0.1,::1');
    expect((await api('GET', '/user/me/', { token: access })).status).toBe(200);
  });

  it('a burst over a low configured limit is 429 with Retry-After and X-RateLimit-*', async () => {
    const other = (await cli('tenant', 'create', '--name', 'Limited')) as typeof tenant;
    await cli('tenant', 'configure', other.tenant_id, '--requests-per-hour', '5');
    const access = await token(other.client_id, other.client_secret);
    const answers = await Promise.all(Array.from({ length: 8 }, () => api('GET', '/user/me/', { token: access })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const limited = answers.find((a) => a.status === 429);
    expect(limited?.body?.error.code).toBe('rate_limit_exceeded');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited?.headers.get('x-ratelimit-limit')).toBe('5');
    expect(limited?.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited?.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('the operator funds a tenant with `balance credit`, and GET /user/balances/ shows the exact amount', async () => {
    const credited = (await cli(
      'balance',
      'credit',
      '--tenant',
      tenant.tenant_id,
      '--currency',
      'USDTERC20',
      '--amount',
      '25.10',
      '--reason',
      'e2e funding',
    )) as { balance: { amount: string } };
    expect(credited.balance.amount).toBe('25.1');
    const balances = await api('GET', '/user/balances/', { token: await token() });
    expect(balances.status).toBe(200);
    expect(Number(balances.body?.account.USDTERC20.amount)).toBe(25.1);
    expect(balances.body?.account.USDTERC20.amount).toMatch(/^25\.10*$/);
    expect(balances.body?.statistics).toMatchObject({ currencies_count: 1 });
  });
});
