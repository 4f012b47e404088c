import { startTestStack, type TestStack } from '../../support/stack.js';
import { tenantWithToken } from '../payments/support.js';

/**
 * The trailing-slash rule over real HTTP through the local stack (API Gateway stand-in, then each group's
 * Lambda): a path answers with or without its trailing slash, except the webhooks pair, where the slash
 * picks the variant.
 */
let stack: TestStack;
let bearer: string;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are asserted field by field
  return { status: res.status, allow: res.headers.get('allow'), body: text ? (JSON.parse(text) as Record<string, any>) : null };
}

beforeAll(async () => {
  stack = await startTestStack({ anvil: false, pollers: false });
  bearer = (await tenantWithToken('Slashes')).bearer;
});

afterAll(async () => {
  await stack?.stop();
});

describe('trailing slash over HTTP', () => {
  it('GET /payments answers the payment list, as GET /payments/ does', async () => {
    const bare = await api('GET', '/payments');
    const slashed = await api('GET', '/payments/');
    expect([bare.status, slashed.status]).toEqual([200, 200]);
    expect(bare.body).toEqual(slashed.body);
    expect(bare.body).toMatchObject({ count: 0, results: [] });
    const limits = await api('GET', '/withdrawal/limits');
    expect(limits.status).toBe(200);
  });

  it('keeps /user/webhooks/ (settings, variant A) and /user/webhooks (subscriptions, variant B) apart', async () => {
    const subscriptions = await api('GET', '/user/webhooks');
    expect([subscriptions.status, subscriptions.body]).toEqual([200, { webhooks: [], count: 0 }]);
    const settings = await api('GET', '/user/webhooks/');
    expect(settings.status).toBe(200);
    expect(settings.body).not.toHaveProperty('webhooks');
    const patchB = await api('PATCH', '/user/webhooks', { enabled_events: [] });
    expect([patchB.status, patchB.body?.error?.code, patchB.allow?.split(', ').sort()]).toEqual([405, 'method_not_allowed', ['DELETE', 'GET', 'POST']]);
    const deleteA = await api('DELETE', '/user/webhooks/', { webhook_id: 'x' });
    expect([deleteA.status, deleteA.allow?.split(', ').sort()]).toEqual([405, ['GET', 'PATCH', 'POST']]);
  });

  it('names the v1.0 endpoint in the v0.9 answer', async () => {
    const gone = await api('GET', '/v0/payments');
    expect(gone.status).toBe(410);
    expect(gone.body?.message).toContain('GET /payments/');
  });
});
