import { jest } from '@jest/globals';
import * as z from 'zod';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { RateLimitError } from '../../../shared/domain/errors.js';
import { createPipeline, type TenantAccess } from '../../../shared/http/pipeline-core.js';
import type { DeferredCount } from '../../../shared/http/rate-limit.js';
import { created, route, type Principal, type RouteRequest } from '../../../shared/http/route.js';
import type { WriteItem } from '../../../shared/usecases/ports.js';
import { apiEvent, lambdaContext } from './event.js';

/**
 * A route that counts its request in its own write (`countsInOwnWrite`): the pipeline hands it the guard and what
 * was read with the credential, then settles the count once the route is done, whatever it did.
 */
const principal = { tenant: { id: 't-1' }, scopes: ['read', 'write'], credential: { kind: 'token', clientId: 'c-1' } } as unknown as Principal;
const ITEM = { count: 'item' } as unknown as WriteItem;

let settled: boolean[] = [];
let refuseOnSettle = false;
let seen: RouteRequest<unknown, unknown, unknown> | null = null;

const count: DeferredCount = {
  headers: { 'X-RateLimit-Remaining': '9' },
  guard: { countItem: () => ITEM },
  settle: async (succeeded, headers) => {
    settled.push(succeeded);
    headers['X-RateLimit-Remaining'] = '0';
    if (!refuseOnSettle || succeeded) return;
    headers['Retry-After'] = '60';
    throw new RateLimitError(60, 2);
  },
};
const access: TenantAccess = {
  authorize: async (r, _event, _now, headers) => {
    Object.assign(headers, r.countsInOwnWrite ? count.headers : {});
    return { principal, prefetched: { rates: null }, count: r.countsInOwnWrite ? count : null };
  },
  beginIdempotency: async () => {
    throw new Error('not used');
  },
};
const api = createPipeline(
  [
    route({
      method: 'POST',
      path: '/things/',
      auth: 'bearer',
      countsInOwnWrite: true,
      body: z.object({ fail: z.boolean() }),
      handle: async (req) => {
        seen = req;
        req.usage?.countItem();
        if (req.body.fail) throw new Error('The write was refused');
        return created({});
      },
    }),
    route({
      method: 'GET',
      path: '/things/',
      auth: 'bearer',
      handle: async (req) => {
        seen = req;
        return created({});
      },
    }),
  ],
  {},
  {},
  access,
);

const post = async (body: string) =>
  (await api(apiEvent('POST', '/things/', { body, headers: { 'content-type': 'application/json' } }), lambdaContext)) as APIGatewayProxyStructuredResultV2 & {
    body: string;
    headers: Record<string, string>;
  };

beforeEach(() => {
  settled = [];
  refuseOnSettle = false;
  seen = null;
});

test('the route receives the guard and the items read; a success settles once, as committed', async () => {
  const answer = await post('{"fail":false}');
  expect(answer.statusCode).toBe(201);
  expect(seen?.usage?.countItem()).toBe(ITEM);
  expect(seen?.prefetched).toEqual({ rates: null });
  expect(settled).toEqual([true]);
  expect(answer.headers['X-RateLimit-Remaining']).toBe('0');
});

test('a request refused before the route (validation) is settled as not committed, with its own answer', async () => {
  const answer = await post('{"fail":"no"}');
  expect([answer.statusCode, JSON.parse(answer.body).error.code]).toEqual([400, 'invalid_request']);
  expect(settled).toEqual([false]);
});

test("a failed write whose count is past a limit answers the settlement's 429, with its headers", async () => {
  refuseOnSettle = true;
  const answer = await post('{"fail":true}');
  expect([answer.statusCode, JSON.parse(answer.body).error.code]).toEqual([429, 'rate_limit_exceeded']);
  expect(answer.headers).toMatchObject({ 'Retry-After': '60', 'X-RateLimit-Remaining': '0' });
  expect(settled).toEqual([false]);
});

test('a failed write within the limits answers its own error', async () => {
  const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const answer = await post('{"fail":true}');
  spy.mockRestore();
  expect(answer.statusCode).toBe(500);
  expect(settled).toEqual([false]);
});

test('a route that does not count in its own write gets no guard and settles nothing', async () => {
  const answer = (await api(apiEvent('GET', '/things/'), lambdaContext)) as APIGatewayProxyStructuredResultV2;
  expect(answer.statusCode).toBe(201);
  expect(seen?.usage).toBeNull();
  expect(settled).toEqual([]);
});
