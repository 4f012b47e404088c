import { jest } from '@jest/globals';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { z } from 'zod';
import { GatewayError } from '../../../shared/domain/errors.js';
import { JsonNumber } from '../../../shared/domain/json-number.js';
import { createApi, MAX_BODY_BYTES } from '../../../shared/http/pipeline.js';
import { ok, route, routesOf } from '../../../shared/http/route.js';
import { decimalInput, integerInput } from '../../../shared/usecases/schema.js';
import { handler as legacy } from '../../../functions/legacy/handler.js';
import { handler as notFound } from '../../../functions/not-found/handler.js';
import { apiEvent, lambdaContext } from './event.js';

const seen: unknown[] = [];
const api = createApi(
  [
    route({
      method: 'POST',
      path: '/things/',
      auth: 'public',
      body: z.object({ amount: decimalInput(), count: integerInput().optional(), name: z.string().min(2) }),
      handle: async (req) => {
        seen.push(req.body);
        return ok({ amount: req.body.amount, echoed: JsonNumber.of(req.body.amount) });
      },
    }),
    route({ method: 'GET', path: '/things/{id}/', auth: 'public', handle: async (req) => ok({ id: req.params.id }) }),
    route({ method: 'GET', path: '/things/special/', auth: 'public', handle: async () => ok({ special: true }) }),
    route({ method: 'GET', path: '/things', auth: 'public', handle: async () => ok({ variant: 'B' }) }),
    route({
      method: 'GET',
      path: '/boom/',
      auth: 'public',
      errorOverrides: { not_found: { code: 'account_not_found' } },
      handle: async (req) => {
        if (!req.headers['x-crash']) throw new GatewayError('not_found', 'missing thing');
        throw new Error('secret internal detail');
      },
    }),
  ],
  {},
);

const call = async (...args: Parameters<typeof apiEvent>) =>
  (await api(apiEvent(...args), lambdaContext)) as APIGatewayProxyStructuredResultV2 & { body: string; headers: Record<string, string> };

const json = { 'content-type': 'application/json' };

/** A group's routes receive what its composition module built, and parse their path parameters. */
const counterRoutes = routesOf<{ readonly counter: { next(): number } }>();
let served = 0;
const withDeps = createApi(
  [
    counterRoutes({
      method: 'GET',
      path: '/counters/{id}/',
      auth: 'public',
      params: z.object({ id: z.string().uuid('Enter a valid UUID.') }),
      handle: async (req, deps) => ok({ id: req.params.id, n: deps.counter.next() }),
    }),
  ],
  { counter: { next: () => ++served } },
);

describe('request pipeline', () => {
  it('hands each route the deps built once for its group, with path parameters parsed by its schema', async () => {
    const id = '5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10';
    const first = await withDeps(apiEvent('GET', `/counters/${id}/`), lambdaContext);
    const second = await withDeps(apiEvent('GET', `/counters/${id}/`), lambdaContext);
    expect(JSON.parse((first as { body: string }).body)).toEqual({ id, n: 1 });
    expect(JSON.parse((second as { body: string }).body)).toEqual({ id, n: 2 });
    const bad = (await withDeps(apiEvent('GET', '/counters/not-a-uuid/'), lambdaContext)) as { statusCode: number; body: string };
    expect(bad.statusCode).toBe(404);
    expect(JSON.parse(bad.body).error).toMatchObject({ code: 'not_found', details: { id: ['Enter a valid UUID.'] } });
    expect(served).toBe(2);
  });

  it("keeps a JSON number's exact text from request to domain and back", async () => {
    const res = await call('POST', '/things/', { body: '{"amount": 25.10, "count": 3, "name": "ab"}', headers: json });
    expect(res.statusCode).toBe(200);
    expect(seen.at(-1)).toEqual({ amount: '25.10', count: 3, name: 'ab' });
    expect(res.body).toBe('{"amount":"25.10","echoed":25.10}');
  });

  it('keeps 18-decimal and 0.1+0.2-style amounts exact', async () => {
    const res = await call('POST', '/things/', { body: '{"amount": 0.300000000000000000000004, "name": "ab"}', headers: json });
    expect(JSON.parse(res.body).amount).toBe('0.300000000000000000000004');
  });

  it('answers validation failures with each field mapped to its messages', async () => {
    const res = await call('POST', '/things/', { body: '{"amount": "abc", "name": "x"}', headers: json });
    expect(res.statusCode).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('invalid_request');
    expect(Object.keys(body.error.details).sort()).toEqual(['amount', 'name']);
    expect(body.error.details.amount).toEqual(['Enter a valid decimal number.']);
  });

  it('answers malformed JSON 400, a wrong content type 415 and a body over 1 MB 413, all in the envelope', async () => {
    const malformed = await call('POST', '/things/', { body: '{"amount": ', headers: json });
    expect([malformed.statusCode, JSON.parse(malformed.body).error.code]).toEqual([400, 'invalid_request']);
    const wrongType = await call('POST', '/things/', { body: 'amount=1', headers: { 'content-type': 'text/plain' } });
    expect([wrongType.statusCode, JSON.parse(wrongType.body).error.code]).toEqual([415, 'unsupported_media_type']);
    const big = await call('POST', '/things/', { body: `{"name":"${'x'.repeat(MAX_BODY_BYTES)}"}`, headers: json });
    expect([big.statusCode, JSON.parse(big.body).error.code]).toEqual([413, 'payload_too_large']);
  });

  it('routes on the raw path: the slash picks a variant where both spellings are routes, else it is optional; literal segments win', async () => {
    expect(JSON.parse((await call('GET', '/things')).body)).toEqual({ variant: 'B' });
    const variantA = await call('GET', '/things/');
    expect([variantA.statusCode, variantA.headers.Allow]).toEqual([405, 'POST']);
    expect(JSON.parse((await call('GET', '/things/special/')).body)).toEqual({ special: true });
    expect(JSON.parse((await call('GET', '/things/special')).body)).toEqual({ special: true });
    expect(JSON.parse((await call('GET', '/things/abc/')).body)).toEqual({ id: 'abc' });
    expect(JSON.parse((await call('GET', '/things/abc')).body)).toEqual({ id: 'abc' });
    const missing = await call('GET', '/things/abc/def');
    expect([missing.statusCode, JSON.parse(missing.body).error.code]).toEqual([404, 'not_found']);
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await call('DELETE', '/things/');
    expect(res.statusCode).toBe(405);
    expect(res.headers.Allow).toBe('POST');
    expect(JSON.parse(res.body).error.code).toBe('method_not_allowed');
  });

  it("sets X-Request-Id on every answer, keeping a caller's id", async () => {
    expect((await call('GET', '/things')).headers['X-Request-Id']).toBe('req-1');
    expect((await call('GET', '/nowhere/', { headers: { 'X-Request-Id': 'abc-123' } })).headers['X-Request-Id']).toBe('abc-123');
  });

  it('applies per-route error overrides and hides unexpected errors behind a generic 500', async () => {
    const overridden = await call('GET', '/boom/');
    expect(JSON.parse(overridden.body).error.code).toBe('account_not_found');
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const crashed = await call('GET', '/boom/', { headers: { 'X-Crash': '1' } });
    spy.mockRestore();
    expect(crashed.statusCode).toBe(500);
    expect(crashed.body).not.toContain('secret internal detail');
    expect(JSON.parse(crashed.body).error.code).toBe('internal_error');
  });

  it('answers unmatched paths 404 not_found from the $default function', async () => {
    const res = (await notFound(apiEvent('GET', '/nope/'), lambdaContext)) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('answers every /v0 path 410 with the flat v0.9 body', async () => {
    for (const [method, path] of [
      ['GET', '/v0/payments'],
      ['POST', '/v0/withdrawal/'],
      ['GET', '/v0'],
    ] as const) {
      const res = (await legacy(apiEvent(method, path), lambdaContext)) as { statusCode: number; body: string };
      expect(res.statusCode).toBe(410);
      const body = JSON.parse(res.body);
      expect(Object.keys(body).sort()).toEqual(['error', 'message', 'request_id']);
      expect(body.error).toBe('deprecated_endpoint');
      expect(body.request_id).toBe('req-1');
    }
  });
});
