import { writeFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import type { Context } from 'aws-lambda';
import fc from 'fast-check';
import { type ApiEvent, type ApiResult } from '../../../shared/http/pipeline.js';
import type { AnyRoute } from '../../../shared/http/route.js';
import { updateTenantSettings } from '../../../shared/store/tenants.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { apiGroupHandlers } from '../../support/api-groups.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { API_ROUTE_TABLES } from '../../support/route-tables.js';
import { lambdaContext } from '../../unit/http/event.js';
import { servingEth, putFixedRates, tenantWithToken } from '../payments/support.js';
import { eventOf, faultOf, formatFor, requestsFor, strayRequests, type FuzzRequest } from './fuzz-requests.js';

/**
 * Every route of every API Lambda (from the route tables) against hostile path parameters, query strings and
 * bodies, in process on DynamoDB Local with an authenticated tenant, so handlers run past auth: no answer is a
 * 5xx and every error is in its group's envelope (v1.0, OAuth for /o/token/, flat for /v0). Deterministic: a
 * fixed seed (FUZZ_SEED overrides it, FUZZ_RUNS the runs per route); a failure prints the seed, the path and
 * the shrunk request, which then becomes a regression test beside the fix.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

let table: TestTable;
let bearer: string;
const handlers: Record<string, Handler> = {};
const known: { ids: string[] } = { ids: [] };

/** Each group's routes with the deps its Lambda builds: the real adapters on the table; webhook I/O faked. */
function buildHandlers(): void {
  // ETH is served (an endpoint never dialled, a factory, the hot wallet's key), so payments and withdrawals are made.
  const cfg = servingEth({ HOT_WALLET_KEY_ID: 'fuzz-hot-wallet' });
  for (const [name, handler] of Object.entries(apiGroupHandlers(cfg))) handlers[name] = handler as unknown as Handler;
}

/** One request to a group's Lambda (no credentials unless given), its status and JSON body. */
async function send(group: string, request: Partial<FuzzRequest> & Pick<FuzzRequest, 'method' | 'rawPath'>) {
  const full: FuzzRequest = { rawQueryString: '', contentType: null, body: null, idempotencyKey: null, authorization: null, apiKey: null, ...request };
  const answer = (await (handlers[group] as Handler)(eventOf(full, bearer, 0), lambdaContext)) as { statusCode: number; body?: string };
  return { status: answer.statusCode, body: answer.body ? (JSON.parse(answer.body) as Record<string, unknown>) : null };
}

beforeAll(async () => {
  table = await startTestTable();
  buildHandlers();
  await putFixedRates();
  const tenant = await tenantWithToken('Fuzz');
  bearer = tenant.bearer;
  await updateTenantSettings(tenant.tenantId, { requests_per_hour: 1_000_000_000, payment_creations_per_hour: 1_000_000_000 });
  await creditAdjustment({ tenant_id: tenant.tenantId, currency: 'USDTERC20', amount: '1000000', reason: 'fuzz funding' }, ledgerRuntime());
  // One resource of each kind, so paths and bodies can name something that exists.
  const made = async (group: string, path: string, body: object, field = 'id'): Promise<string> => {
    const answer = await send(group, { method: 'POST', rawPath: path, contentType: 'application/json', body: JSON.stringify(body), authorization: 'bearer' });
    const id = answer.body?.[field];
    if (answer.status >= 300 || typeof id !== 'string') throw new Error(`fixture POST ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return id;
  };
  known.ids.push(
    await made('payments', '/payments/', { amount: '25', currency: 'USDTERC20' }, 'transaction_id'),
    await made('withdrawals', '/withdrawal/', { amount: '20', currency: 'USDTERC20', address: '0x52908400098527886E0F7030069857D2E4169EE7' }),
    await made('user', '/user/webhooks', { url: 'https://hooks.example.com/fuzz' }),
    await made('wallets', '/wallets/', { name: 'Fuzz' }, 'wallet_id'),
    await made('transactions', '/transactions/export/', {}, 'export_id'),
    await made('custody', '/custody/accounts', { name: 'Fuzz' }, 'account_id'),
  );
});

afterAll(async () => {
  await table?.stop();
});

const cases = Object.entries(API_ROUTE_TABLES).flatMap(([name, routes]) =>
  (routes as readonly AnyRoute[]).map((route) => [`${route.method} ${route.path}`, name, route] as const),
);

/** FUZZ_STATS=<file> writes every answer's route, status and latency there (to see what the runs reach). */
const stats: string[] = [];
afterAll(() => {
  if (process.env.FUZZ_STATS) writeFileSync(process.env.FUZZ_STATS, `${stats.join('\n')}\n`);
});

let n = 0;

/**
 * Sends each generated request to the group's Lambda: no 5xx, and an error in the envelope of the route it
 * reached. Answers null, or fast-check's report (seed, path, shrunk request) of the first failure.
 */
async function failureOf(name: string, label: string, requests: fc.Arbitrary<FuzzRequest>): Promise<string | null> {
  const handler = handlers[name] as Handler;
  const formatOf = formatFor(API_ROUTE_TABLES[name] as readonly AnyRoute[]);
  const details = await fc.check(
    fc.asyncProperty(requests, async (request) => {
      const started = Date.now();
      const answer = (await handler(eventOf(request, bearer, n++), lambdaContext)) as { statusCode: number; body?: string };
      const body = answer.body ?? '';
      if (process.env.FUZZ_STATS) stats.push(`${label} ${answer.statusCode} ${Date.now() - started}ms ${body.slice(0, 120).replace(/\s+/g, ' ')}`);
      const fault = faultOf({ statusCode: answer.statusCode, body }, formatOf(request.method, request.rawPath));
      if (fault) throw new Error(`${request.method} ${request.rawPath.slice(0, 200)}?${request.rawQueryString.slice(0, 200)}: ${fault}`);
    }),
    // A failing run shrinks its input; the time limit only bounds shrinking (an interrupted run fails).
    { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
  );
  return details.failed ? (fc.defaultReportMessage(details) ?? 'failed') : null;
}

describe('fuzz: no 5xx, every error in its envelope', () => {
  // Unexpected errors are logged before they become 500s; the assertion names them, the log would only repeat them.
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it.each(cases)('%s (%s)', async (key, name, route) => {
    expect(await failureOf(name, key, requestsFor(route, known))).toBeNull();
  });

  it.each(Object.keys(API_ROUTE_TABLES))('any path at the %s Lambda', async (name) => {
    expect(await failureOf(name, `${name} *`, strayRequests(API_ROUTE_TABLES[name] as readonly AnyRoute[], known))).toBeNull();
  });
});

/** Inputs the fuzzing found answering 5xx, kept as they were found (each fixed where it arose). */
describe('inputs the fuzzing found', () => {
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('POST /o/revoke_token/ and /o/token/ with a client_id too long to be a key: 401 invalid_client, not 500', async () => {
    const body = JSON.stringify({ client_secret: ' ', client_id: 'x'.repeat(3000) });
    const revoke = await send('auth', { method: 'POST', rawPath: '/o/revoke_token/', contentType: 'application/json', body });
    expect([revoke.status, revoke.body?.error]).toEqual([401, 'invalid_client']);
    const token = await send('auth', {
      method: 'POST',
      rawPath: '/o/token/',
      contentType: 'application/x-www-form-urlencoded',
      body: 'grant_type=client_credentials',
      authorization: basic('x'.repeat(3000), 'secret'),
    });
    expect([token.status, token.body?.error]).toEqual([401, 'invalid_client']);
  });

  it('POST /o/token/ with Basic credentials that are not valid percent-encoding: 401 invalid_client, not 500', async () => {
    const token = await send('auth', {
      method: 'POST',
      rawPath: '/o/token/',
      contentType: 'application/x-www-form-urlencoded',
      body: 'grant_type=client_credentials',
      authorization: basic('a%zz', 'b'),
    });
    expect([token.status, token.body?.error]).toEqual([401, 'invalid_client']);
  });

  it('GET /withdrawal/ with start_date after end_date: 400 invalid_request naming end_date, not 500', async () => {
    const list = await send('withdrawals', {
      method: 'GET',
      rawPath: '/withdrawal/',
      rawQueryString: 'start_date=2030-12-31T23:59:59.999Z&end_date=2026-01-01T00:00:00Z',
      authorization: 'bearer',
    });
    expect([list.status, (list.body?.error as { code?: string } | undefined)?.code]).toEqual([400, 'invalid_request']);
    expect((list.body?.error as { details?: Record<string, unknown> }).details).toHaveProperty('end_date');
    const sameDay = await send('withdrawals', {
      method: 'GET',
      rawPath: '/withdrawal/',
      rawQueryString: 'start_date=2026-01-01&end_date=2026-01-01',
      authorization: 'bearer',
    });
    expect(sameDay.status).toBe(200);
  });
});

describe('the check', () => {
  it('flags a 5xx, an error outside its envelope and a body that is not JSON; passes the envelopes', () => {
    const envelope = JSON.stringify({ error: { code: 'invalid_request', message: 'Bad.', details: {} } });
    expect(faultOf({ statusCode: 500, body: envelope }, 'envelope')).toMatch(/answered 500/);
    expect(faultOf({ statusCode: 503, body: '' }, 'envelope')).toMatch(/answered 503/);
    expect(faultOf({ statusCode: 400, body: envelope }, 'envelope')).toBeNull();
    expect(faultOf({ statusCode: 400, body: JSON.stringify({ error: 'invalid_request', message: 'Bad.' }) }, 'envelope')).toMatch(/envelope/);
    expect(faultOf({ statusCode: 400, body: JSON.stringify({ error: { code: 'x', message: 'y', details: null } }) }, 'envelope')).toMatch(/envelope/);
    expect(faultOf({ statusCode: 404, body: 'Not Found' }, 'envelope')).toMatch(/not JSON/);
    expect(faultOf({ statusCode: 401, body: JSON.stringify({ error: 'invalid_client', error_description: 'No.' }) }, 'oauth')).toBeNull();
    expect(faultOf({ statusCode: 401, body: envelope }, 'oauth')).toMatch(/OAuth/);
    expect(faultOf({ statusCode: 410, body: JSON.stringify({ error: 'deprecated_endpoint', message: 'Gone.', request_id: 'r' }) }, 'legacy')).toBeNull();
    expect(faultOf({ statusCode: 410, body: envelope }, 'legacy')).toMatch(/v0.9/);
    expect(faultOf({ statusCode: 200, body: '{}' }, 'envelope')).toBeNull();
  });
});
