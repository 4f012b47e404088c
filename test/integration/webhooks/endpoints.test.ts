import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { handler as systemHandler } from '../../../functions/system/handler.js';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';
import { resetConfig } from '../../../shared/config/config.js';
import { dynamoWebhookSettings } from '../../../shared/store/webhooks/settings.js';
import { clientAuthFrom, issueToken } from '../../../shared/usecases/auth/issue-token.js';
import { createApiKey } from '../../../shared/usecases/tenants/api-keys.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import type { ApiEvent, ApiResult } from '../../../shared/http/pipeline.js';
import type { SecretBox } from '../../../shared/usecases/webhooks/ports.js';
import { redeliver } from '../../../shared/usecases/webhooks/redeliver.js';
import { createKmsSecretBox } from '../../../shared/webhooks/secret-box.js';
import { createHttpSender } from '../../../shared/webhooks/http-sender.js';
import { VirtualClock } from '../../support/clock.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { apiEvent, lambdaContext } from '../../unit/http/event.js';
import { outboxChanges } from '../../support/outbox.js';
import { startReceiver, storeDeps, VirtualQueue, type Receiver } from './support.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { authRuntime } from '../../../shared/runtime/auth.js';

/** The webhook endpoints through the real pipeline, DynamoDB Local and the local KMS endpoint. */
let table: TestTable;
let kms: KmsServer;
let receiver: Receiver;
let tenantId: string;
let bearer: string;
let readOnlyKey: string;
let apiKey: string;
let client: { clientId: string; clientSecret: string };
let kmsSecretBox: SecretBox;
type ApiHandler = (event: ApiEvent, context: typeof lambdaContext) => Promise<ApiResult>;
/** The user Lambda's handler, imported once the environment names the KMS endpoint and key (it wires at module scope). */
let userHandler: ApiHandler;

type Answer = { status: number; body: Record<string, unknown> & { error?: { code: string } } };

async function call(method: string, path: string, body?: unknown, auth: Record<string, string> = { authorization: `Bearer ${bearer}` }): Promise<Answer> {
  const headers: Record<string, string> = { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const [route = path, search] = path.split('?');
  const query = search === undefined ? {} : { query: Object.fromEntries(new URLSearchParams(search)) };
  const res = (await userHandler(
    apiEvent(method, route, { headers, ...query, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
    lambdaContext,
  )) as APIGatewayProxyStructuredResultV2 & { body: string };
  return { status: res.statusCode ?? 0, body: res.body ? (JSON.parse(res.body) as Answer['body']) : {} };
}

async function outboxTypes(): Promise<string[]> {
  return (await outboxChanges(''))
    .flat()
    .filter((e) => e.tenantId === tenantId)
    .map((e) => e.type);
}

beforeAll(async () => {
  table = await startTestTable('webhooks-endpoints');
  kms = await startKmsServer({ host: '127.0.0.1', port: 0 });
  const admin = new KMSClient({ endpoint: kms.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const key = await admin.send(new CreateKeyCommand({ KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT' }));
  admin.destroy();
  Object.assign(process.env, { AWS_ENDPOINT_URL_KMS: kms.url, SECRETS_KEY_ID: key.KeyMetadata?.KeyId ?? '', ALLOW_LOOPBACK_CALLBACKS: 'true' });
  resetConfig();
  ({ handler: userHandler } = await import('../../../functions/user/handler.js'));
  kmsSecretBox = createKmsSecretBox({ region: 'us-east-1', keyId: key.KeyMetadata?.KeyId });
  receiver = await startReceiver(() => 200);
  const made = await createTenant({ name: 'Hooks' }, tenantsRuntime());
  tenantId = made.tenant.id;
  client = { clientId: made.clientId, clientSecret: made.clientSecret };
  bearer = (
    await issueToken(
      { grant_type: 'client_credentials' },
      clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret }),
      new Date(),
      authRuntime(),
    )
  ).access_token;
  apiKey = made.apiKey;
  readOnlyKey = (await createApiKey({ tenant_id: tenantId, scopes: ['read'] }, tenantsRuntime())).apiKey;
});

afterAll(async () => {
  await receiver?.close();
  await kms?.close();
  await table?.stop();
});

describe('variant A: /user/webhooks/', () => {
  let secret: string;

  it('creates the settings and shows the secret whole once, masked afterwards (also in /user/me/)', async () => {
    const first = await call('POST', '/user/webhooks/', { callback_url: receiver.url });
    expect(first.status).toBe(200);
    secret = first.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const again = await call('POST', '/user/webhooks/', { callback_url: receiver.url });
    expect(again.body.secret).toBe(`${secret.slice(0, 12)}********`);
    const got = await call('GET', '/user/webhooks/');
    expect(got.body).toEqual({
      webhook_url: receiver.url,
      webhook_secret: `${secret.slice(0, 12)}********`,
      enabled_events: expect.arrayContaining(['payment_status_update', 'deposit_merged']),
    });
    const me = await call('GET', '/user/me/');
    expect([me.body.webhook_callback_url, me.body.webhook_secret]).toEqual([receiver.url, `${secret.slice(0, 12)}********`]);
    // Stored encrypted, never in plain text.
    const stored = await dynamoWebhookSettings.get(tenantId);
    expect(stored?.secretCipher).not.toContain(secret.slice(6));
    expect(await kmsSecretBox.decrypt(stored?.secretCipher ?? '', tenantId)).toBe(secret);
  });

  it('refuses private, metadata and plain-HTTP non-loopback URLs', async () => {
    for (const url of ['https://10.1.2.3/x', 'https://169.254.169.254/latest', 'http://example.com/x', 'https://[::ffff:a9fe:a9fe]/x']) {
      const res = await call('POST', '/user/webhooks/', { callback_url: url });
      expect([url, res.status, res.body.error?.code]).toEqual([url, 400, 'invalid_url']);
    }
  });

  it('PATCH changes enabled_events (validated) and rotates the secret, shown whole once', async () => {
    const bad = await call('PATCH', '/user/webhooks/', { enabled_events: ['payment.completed'] });
    expect([bad.status, bad.body.error?.code]).toEqual([400, 'invalid_event_types']);
    const res = await call('PATCH', '/user/webhooks/', { enabled_events: ['payment_status_update'], webhook_secret: 'rotate' });
    expect(res.status).toBe(200);
    expect(res.body.enabled_events).toEqual(['payment_status_update']);
    expect(res.body.webhook_secret).not.toBe(secret);
    secret = res.body.webhook_secret as string;
    expect(secret).toMatch(/^whsec_/);
  });

  it('the test webhook arrives signed (X-Signature and Standard Webhooks) and is listed with its answer', async () => {
    receiver.received.length = 0;
    const res = await call('POST', '/user/webhooks/test/', { event_type: 'payment_status_update' }, { 'x-api-key': apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: true, status_code: 200 });
    const got = receiver.received[0];
    expect(got).toBeDefined();
    const body = got?.body ?? '';
    expect(got?.headers['x-signature']).toBe(createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex'));
    const h = got?.headers ?? {};
    expect(
      new Webhook(secret).verify(body, {
        'webhook-id': String(h['webhook-id']),
        'webhook-timestamp': String(h['webhook-timestamp']),
        'webhook-signature': String(h['webhook-signature']),
      }),
    ).toMatchObject({
      event: 'payment_status_update',
      data: { test: true },
    });
    const log = await call('GET', '/user/webhooks/deliveries/');
    const attempts = log.body.results as { delivery_id: string; status_code: number; response_excerpt: string; latency_ms: number; request_body: string }[];
    expect(attempts[0]).toMatchObject({ delivery_id: res.body.delivery_id, status_code: 200, response_excerpt: 'ok', request_body: body });

    // Redelivery: the same body and webhook-id, through the queue.
    const clock = new VirtualClock(new Date());
    const queue = new VirtualQueue(clock);
    const deps = storeDeps({ clock, queue, send: createHttpSender({ policy: { allowLoopback: true } }), secrets: kmsSecretBox });
    const again = await redeliver(tenantId, res.body.delivery_id as string, deps);
    expect(again.webhook_id).toBe(h['webhook-id']);
    const { handleWebhookMessage } = await import('../../../shared/usecases/webhooks/deliver.js');
    await queue.drain((b) => handleWebhookMessage(b, deps));
    expect(receiver.received.map((r) => [r.headers['webhook-id'], r.body])).toEqual([
      [h['webhook-id'], body],
      [h['webhook-id'], body],
    ]);
  });

  it('pages the delivery log with opaque cursors; a broken or forged cursor is 400 invalid_request, not 500', async () => {
    await call('POST', '/user/webhooks/test/', { event_type: 'deposit_received' }, { 'x-api-key': apiKey });
    const page1 = await call('GET', '/user/webhooks/deliveries/?limit=1');
    expect(page1.status).toBe(200);
    const cursor = page1.body.next_cursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const page2 = await call('GET', `/user/webhooks/deliveries/?limit=1&cursor=${cursor}`);
    expect(page2.status).toBe(200);
    expect((page2.body.results as { delivery_id: string }[])[0]?.delivery_id).not.toBe((page1.body.results as { delivery_id: string }[])[0]?.delivery_id);
    for (const bad of [
      'x',
      encodeURIComponent('WHLOG#2026-01-01T00:00:00.000Z#d#1'),
      Buffer.from('{"t":"other","at":"2026-01-01T00:00:00.000Z","d":"d","n":1}').toString('base64url'),
    ]) {
      const res = await call('GET', `/user/webhooks/deliveries/?cursor=${bad}`);
      const error = res.body.error as { code: string; details?: Record<string, unknown> } | undefined;
      expect([bad, res.status, error?.code, Object.keys(error?.details ?? {})]).toEqual([bad, 400, 'invalid_request', ['cursor']]);
    }
  });
});

describe('variant B: /user/webhooks', () => {
  it('creates (200, secret once), lists (masked) and deletes, with the codes of 4.6', async () => {
    const created = await call('POST', '/user/webhooks', {
      url: receiver.url,
      event_types: ['payment.all', 'security.settings_changed'],
      description: 'orders',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ url: receiver.url, status: 'active', failure_count: 0, last_triggered_at: null, description: 'orders' });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const dup = await call('POST', '/user/webhooks', { url: receiver.url });
    expect([dup.status, dup.body.error?.code]).toEqual([400, 'url_already_existsm']);
    const types = await call('POST', '/user/webhooks', { url: `${receiver.url}/2`, event_types: ['payment.paid'] });
    expect([types.status, types.body.error?.code]).toEqual([400, 'invalid_event_types']);
    const https = await call('POST', '/user/webhooks', { url: 'http://example.com/hook' });
    expect([https.status, https.body.error?.code]).toEqual([400, 'invalid_url']);
    const scope = await call('POST', '/user/webhooks', { url: `${receiver.url}/3` }, { 'x-api-key': readOnlyKey });
    expect([scope.status, scope.body.error?.code]).toEqual([403, 'insufficient_permissions']);

    const list = await call('GET', '/user/webhooks', undefined, { 'x-api-key': readOnlyKey });
    expect(list.body.count).toBe(1);
    expect((list.body.webhooks as { secret: string }[])[0]?.secret).toBe(`${(created.body.secret as string).slice(0, 12)}********`);

    const badId = await call('DELETE', '/user/webhooks', { webhook_id: 'nope' });
    expect([badId.status, badId.body.error?.code]).toEqual([400, 'invalid_webhook_id']);
    const missing = await call('DELETE', '/user/webhooks', { webhook_id: '00000000-0000-4000-8000-000000000000' });
    expect([missing.status, missing.body.error?.code]).toEqual([404, 'webhook_not_found']);
    const deleted = await call('DELETE', '/user/webhooks', { webhook_id: created.body.id });
    expect(deleted.body).toEqual({ deleted: true, webhook_id: created.body.id });
  });

  it('allows at most 10 per tenant', async () => {
    for (let i = 0; i < 10; i++) expect((await call('POST', '/user/webhooks', { url: `${receiver.url}/n${i}` })).status).toBe(200);
    const eleventh = await call('POST', '/user/webhooks', { url: `${receiver.url}/n10` });
    expect(eleventh.status).toBe(400);
  });

  it('webhook changes emit security.settings_changed; a bad client secret emits security.login_attempt', async () => {
    await expect(
      issueToken({ grant_type: 'client_credentials' }, { clientId: client.clientId, clientSecret: 'wrong' }, new Date(), authRuntime()),
    ).rejects.toThrow();
    const types = await outboxTypes();
    expect(types.filter((t) => t === 'security.settings_changed').length).toBeGreaterThanOrEqual(14);
    expect(types).toContain('security.login_attempt');
  });
});

it('/openapi.json documents every webhook route', async () => {
  const res = (await systemHandler(apiEvent('GET', '/openapi.json'), lambdaContext)) as APIGatewayProxyStructuredResultV2 & { body: string };
  const paths = (JSON.parse(res.body) as { paths: Record<string, Record<string, unknown>> }).paths;
  expect(Object.keys(paths['/user/webhooks/'] ?? {}).sort()).toEqual(['get', 'patch', 'post']);
  expect(Object.keys(paths['/user/webhooks'] ?? {}).sort()).toEqual(['delete', 'get', 'post']);
  expect(paths['/user/webhooks/test/']?.post).toBeDefined();
  expect(paths['/user/webhooks/deliveries/']?.get).toBeDefined();
  expect(paths['/user/webhooks/deliveries/{delivery_id}/redeliver/']?.post).toBeDefined();
});
