import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import fc from 'fast-check';
import { buildEvent } from '../../../infra/local/http/event.js';
import openapi from '../../../functions/system/openapi.json' with { type: 'json' };
import type { AnyRoute, ErrorFormat } from '../../../shared/http/route.js';
import { createRouter } from '../../../shared/http/router.js';

/**
 * Hostile requests for one route, as API Gateway hands them to its Lambda (infra/local/http/event.ts builds the
 * event): path parameters, query strings and bodies that are wrong in every way the interface must survive, and
 * the check every answer passes: no 5xx, every error in its group's envelope.
 */

export interface FuzzRequest {
  readonly method: string;
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly contentType: string | null;
  readonly body: string | null;
  readonly idempotencyKey: string | null;
  /** The Authorization header: the tenant's bearer token (`bearer`), another value, or none (null). */
  readonly authorization: string | null;
  readonly apiKey: string | null;
}

// ------------------------------------------------------------------------------------------------ what a route names

interface Operation {
  readonly parameters?: readonly { readonly name: string; readonly in: string }[];
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: unknown }> };
}

const document = openapi as unknown as { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } };

/** Property names a JSON schema mentions (references, unions and nesting followed), for plausible bodies. */
function propertyNames(schema: unknown, seen = new Set<unknown>()): string[] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return [];
  seen.add(schema);
  const s = schema as Record<string, unknown>;
  const names: string[] = [];
  if (typeof s.$ref === 'string') names.push(...propertyNames(document.components?.schemas?.[s.$ref.split('/').pop() ?? ''], seen));
  if (s.properties && typeof s.properties === 'object') names.push(...Object.keys(s.properties));
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) for (const part of s[key] as unknown[]) names.push(...propertyNames(part, seen));
  }
  return [...new Set(names)];
}

/** The query keys and body fields the published document gives a route (the same zod schemas validate them). */
export function namesOf(route: AnyRoute): { readonly query: readonly string[]; readonly body: readonly string[] } {
  const operation = document.paths[route.path.replace(/\{(\w+)\+\}/g, '{$1}')]?.[route.method.toLowerCase()];
  const query = (operation?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const body = Object.values(operation?.requestBody?.content ?? {}).flatMap((c) => propertyNames(c.schema));
  return { query, body: [...new Set(body)] };
}

// ------------------------------------------------------------------------------------------------ values

const UUID = '5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10';

/** Strings the interface's fields and filters take, right and wrong. */
const PLAUSIBLE = [
  '10',
  '0',
  '-1',
  '-0',
  '0.000000001',
  '1e400',
  '-1e400',
  '1e-400',
  '9'.repeat(400),
  'NaN',
  'Infinity',
  '',
  ' ',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  UUID,
  'USD',
  'EUR',
  'USDTERC20',
  'USDTTRC20',
  'USDTPOLYGON',
  'ETH',
  'BTC',
  'TRX',
  'TRON',
  'SOL',
  'USDT',
  'waiting',
  'pending',
  'completed',
  'created_at',
  '-amount',
  'created_desc',
  '2026-01-01',
  '2026-13-45T99:99:99Z',
  '0x0000000000000000000000000000000000000001',
  '0x52908400098527886E0F7030069857D2E4169EE7',
  'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  'https://hooks.example.com/gateway',
  'http://127.0.0.1/',
  'https://[::a9fe:a9fe]/',
  'read write',
  'client_credentials',
  'payment.created',
  'rotate',
  '%00',
  '\u0000',
  '..',
  '../..',
  'ü',
  '😀',
  '\u202e',
  '<script>',
];

const text = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PLAUSIBLE) },
  { weight: 2, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6000 }).map((n) => 'x'.repeat(n)) },
);

const numberText = fc.oneof(fc.integer().map(String), fc.double().map(String), fc.bigInt().map(String));

const jsonScalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)) },
);

const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: jsonScalar },
  { weight: 1, arbitrary: fc.array(jsonScalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), jsonScalar, { maxKeys: 3 }) },
);

/** What a test fixture made: resource ids the paths and bodies may name, so handlers run past their lookups. */
export interface Known {
  readonly ids: readonly string[];
}

const EVM = ['0x52908400098527886E0F7030069857D2E4169EE7', '0x0000000000000000000000000000000000000001', '0xde709f2102306220921060314715629080e2fb77'];
const TRON = ['TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb'];
const EVENTS = ['payment.created', 'payment.completed', 'withdrawal.status_changed', 'payment_status_update', 'nope'];

/** A value a field of this name takes when the caller means well (the interface's words for its fields). */
function plausible(name: string, known: Known): fc.Arbitrary<unknown> {
  const ids = fc.constantFrom(...known.ids, UUID);
  if (/(^|_)id$/.test(name) && name !== 'client_id' && name !== 'order_id' && name !== 'custom_id') return ids;
  if (/amount|^fee_percentage$/.test(name)) return fc.constantFrom('10', '25.5', '0.5', 100, '1000000', '12.123456789', 1);
  if (/currency/.test(name)) return fc.constantFrom('USDTERC20', 'USDTTRC20', 'USDCERC20', 'ETH', 'USDTPOLYGON', 'BTC', 'USD', 'EUR', 'GBP');
  if (name === 'blockchain') return fc.constantFrom('ETH', 'TRON', 'TRX', 'BSC', 'ARB', 'BASE', 'SOL', 'POLYGON', 'XRP');
  if (name === 'token') return fc.constantFrom('USDT', 'USDC', 'ETH');
  if (name === 'address') return fc.constantFrom(...EVM, ...TRON);
  if (/url$/.test(name)) return fc.constantFrom('https://hooks.example.com/gateway', 'https://127.0.0.1/x', 'http://hooks.example.com/');
  if (name === 'event_types' || name === 'enabled_events') return fc.subarray(EVENTS);
  if (name === 'event_type') return fc.constantFrom(...EVENTS);
  if (/^is_|^final_amount$|^full$|^min_max$|^include_usd$|^withdrawal$/.test(name)) return fc.oneof(fc.boolean(), fc.constantFrom('true', 'false'));
  if (name === 'expiry_minutes') return fc.integer({ min: 0, max: 1500 });
  if (name === 'customer_email') return fc.constantFrom('buyer@example.com', 'not-an-email');
  if (name === 'grant_type') return fc.constantFrom('client_credentials', 'password');
  if (name === 'scope') return fc.constantFrom('read write', 'read', 'read write admin');
  if (name === 'scopes') return fc.subarray(['read', 'write', 'admin']);
  if (name === 'type') return fc.constantFrom('EVM', 'TRX', 'SOL', 'payment', 'withdrawal');
  if (name === 'webhook_secret') return fc.constantFrom('rotate', 'a'.repeat(32), 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', 'short');
  if (name === 'status') return fc.constantFrom('waiting', 'pending', 'completed', 'cancelled', 'active');
  if (name === 'ordering' || name === 'sort') return fc.constantFrom('created_at', '-created_at', 'amount', '-amount', 'created_asc', 'amount_desc');
  if (/date|_after$|_before$/.test(name)) return fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-01', '2030-12-31T23:59:59.999Z');
  if (/^(page|page_size|limit|offset)$/.test(name)) return fc.integer({ min: 0, max: 120 }).map(String);
  return fc.string({ minLength: 1, maxLength: 20 });
}

// ------------------------------------------------------------------------------------------------ path

/** A path parameter: a valid uuid, garbage, over-long, unicode, NUL, dot segments; sent raw or percent-encoded. */
const pathValue = (known: Known) =>
  fc
    .tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known.ids, UUID) }, { weight: 1, arbitrary: fc.uuid() }, { weight: 5, arbitrary: text }),
      fc.boolean(),
    )
    .map(([value, encode]) => (encode ? encodeURIComponent(value) : value));

function pathFor(template: string, known: Known): fc.Arbitrary<string> {
  const names = [...template.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1] ?? '');
  return fc.tuple(fc.array(pathValue(known), { minLength: names.length, maxLength: names.length }), fc.boolean()).map(([values, respell]) => {
    let i = 0;
    const filled = template.replace(/\{\w+\+?\}/g, () => values[i++] ?? '');
    // Either spelling of the trailing slash.
    if (!respell || filled === '/') return filled;
    return filled.endsWith('/') ? filled.slice(0, -1) : `${filled}/`;
  });
}

// ------------------------------------------------------------------------------------------------ query

function queryFor(names: readonly string[], known: Known): fc.Arbitrary<string> {
  const hostileKey = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'page[]', 'a[b]', ''));
  const hostileValue = fc.oneof({ weight: 4, arbitrary: text }, { weight: 2, arbitrary: numberText });
  const hostile = fc.tuple(hostileKey, hostileValue);
  const pairs =
    names.length === 0
      ? hostile
      : fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...names).chain((k) => fc.tuple(fc.constant(k), plausible(k, known).map(String))) },
          { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...names), hostileValue) },
          { weight: 1, arbitrary: hostile },
        );
  // Repeated keys and arrays: API Gateway joins the values with ',' in queryStringParameters.
  const pair = fc
    .tuple(
      pairs,
      fc.boolean(),
      fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
    )
    .map(([[k, v], encode, bare]) => {
      const e = (s: string) => (encode ? encodeURIComponent(s) : s.replace(/[&=#\s]/g, encodeURIComponent));
      return bare ? e(k) : `${e(k)}=${e(v)}`;
    });
  return fc.array(pair, { maxLength: 4 }).map((list) => list.join('&'));
}

// ------------------------------------------------------------------------------------------------ body

function bodyFor(fields: readonly string[], known: Known): fc.Arbitrary<{ contentType: string | null; body: string | null }> {
  const field =
    fields.length > 0
      ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...fields) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) })
      : fc.string({ maxLength: 8 });
  // Known fields with wrong, missing or extra values.
  const object = fc.dictionary(field, jsonValue, { maxKeys: Math.max(3, fields.length + 2) });
  // What a caller meaning well sends (any field may be missing), with up to two fields made hostile.
  const meant = fc
    .tuple(
      fc.record(Object.fromEntries(fields.map((f) => [f, plausible(f, known)])), { requiredKeys: [] }),
      fc.array(fc.tuple(field, jsonValue), { maxLength: 2 }),
    )
    .map(([base, hostile]) => ({ ...base, ...Object.fromEntries(hostile) }));
  const nested = (n: number, open: string, close: string, inner: string) => `${open.repeat(n)}${inner}${close.repeat(n)}`;
  const json = fc.oneof(
    { weight: 12, arbitrary: meant.map((o) => JSON.stringify(o)) },
    { weight: 4, arbitrary: object.map((o) => JSON.stringify(o)) },
    // Deep nesting, as arrays and as objects under a known field.
    { weight: 1, arbitrary: fc.integer({ min: 50, max: 200_000 }).map((n) => nested(n, '[', ']', '')) },
    {
      weight: 1,
      arbitrary: fc.tuple(field, fc.integer({ min: 50, max: 100_000 })).map(([f, n]) => `{${JSON.stringify(f)}:${nested(n, '{"a":', '}', '1')}}`),
    },
    // Huge strings, and a body over the 1 MB limit.
    { weight: 1, arbitrary: fc.tuple(field, fc.integer({ min: 1_000, max: 1_100_000 })).map(([f, n]) => JSON.stringify({ [f]: 'x'.repeat(n) })) },
    // Not an object, or not JSON at all.
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{',
        '{"amount":',
        'not json',
        '[1,]',
        '{"a":1}{"a":2}',
        "{'amount':1}",
        '{"amount": 1e400}',
        '{"amount": -0}',
        '{"amount": 0.1e-400}',
        '{"__proto__": {"admin": true}}',
        '{"constructor": {"prototype": {"x": 1}}}',
        '\u0000',
        '\ufeff{}',
        '',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
  const formOf = (o: Record<string, unknown>): string =>
    new URLSearchParams(Object.entries(o).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')])).toString();
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'application/vnd.api+json',
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        '',
      ),
    },
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant({ contentType: null, body: null }) },
    { weight: 6, arbitrary: fc.tuple(contentType, json).map(([t, b]) => ({ contentType: t || null, body: b })) },
    { weight: 1, arbitrary: fc.oneof(object, meant).map((o) => ({ contentType: 'application/x-www-form-urlencoded', body: formOf(o) })) },
  );
}

// ------------------------------------------------------------------------------------------------ request

export function requestsFor(route: AnyRoute, known: Known): fc.Arbitrary<FuzzRequest> {
  const names = namesOf(route);
  return fc
    .record({
      rawPath: pathFor(route.path, known),
      rawQueryString: queryFor(names.query, known),
      payload: route.body || route.method !== 'GET' ? bodyFor(names.body, known) : fc.constant({ contentType: null, body: null }),
      authorization: fc.oneof(
        { weight: 12, arbitrary: fc.constant('bearer') },
        { weight: 1, arbitrary: fc.constant(null) },
        {
          weight: 2,
          arbitrary: fc.oneof(
            fc
              .tuple(fc.oneof(text, fc.constantFrom('a%zz', 'gc_x', 'x'.repeat(3000))), text)
              .map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`),
            fc.constantFrom(
              'Basic !!!',
              'Basic ',
              `Basic ${Buffer.from('no-colon').toString('base64')}`,
              'Bearer ',
              `Bearer ${'x'.repeat(5000)}`,
              'Bearer a b',
              'Digest x',
            ),
            text.map((t) => `Bearer ${t}`),
          ),
        },
      ),
      apiKey: fc.option(fc.oneof(text, fc.constant('gak_x')), { freq: 6 }),
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 300 }), fc.constant('k'.repeat(10_000))), { freq: 3 }),
    })
    .map(({ payload, ...rest }) => ({ method: route.method, ...rest, ...payload }));
}

/** Any request at all to a Lambda: a path made of the group's words and hostile segments, any method. */
export function strayRequests(routes: readonly AnyRoute[], known: Known): fc.Arbitrary<FuzzRequest> {
  const words = [...new Set(routes.flatMap((r) => r.path.split('/')).filter((w) => w !== '' && !w.startsWith('{')))];
  const segment = fc.oneof({ weight: 3, arbitrary: words.length > 0 ? fc.constantFrom(...words) : text }, { weight: 2, arbitrary: pathValue(known) });
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'get'),
      segments: fc.array(segment, { maxLength: 6 }),
      slash: fc.boolean(),
      payload: bodyFor([], known),
    })
    .map(({ method, segments, slash, payload }) => ({
      method,
      rawPath: `/${segments.join('/')}${slash && segments.length > 0 ? '/' : ''}`,
      rawQueryString: '',
      ...payload,
      idempotencyKey: null,
      authorization: 'bearer',
      apiKey: null,
    }));
}

/** The event API Gateway sends for a request (binary and form bodies base64, as it does). */
export function eventOf(request: FuzzRequest, bearer: string, n: number): APIGatewayProxyEventV2 {
  const headers = ['Host', 'api.example.test'];
  if (request.authorization !== null) headers.push('Authorization', request.authorization === 'bearer' ? `Bearer ${bearer}` : request.authorization);
  if (request.apiKey !== null) headers.push('X-API-Key', request.apiKey);
  if (request.contentType !== null) headers.push('Content-Type', request.contentType);
  if (request.idempotencyKey !== null) headers.push('Idempotency-Key', request.idempotencyKey);
  const body = request.body === null ? undefined : Buffer.from(request.body, 'utf8');
  return buildEvent({
    method: request.method,
    rawHeaders: headers,
    httpVersion: '1.1',
    sourceIp: '203.0.113.7',
    localPort: 443,
    body,
    routeKey: '$default',
    pathParameters: undefined,
    rawPath: request.rawPath,
    rawQueryString: request.rawQueryString,
    requestId: `fuzz-${n}`,
    now: Date.now(),
  });
}

// ------------------------------------------------------------------------------------------------ the check

/** The error format of the route the group's router picks for the request (the envelope when none). */
export function formatFor(routes: readonly AnyRoute[]): (method: string, rawPath: string) => ErrorFormat {
  const find = createRouter(routes);
  return (method, rawPath) => {
    // The pipeline routes on the upper-cased method.
    const m = find(method.toUpperCase(), rawPath);
    return m.kind === 'found' ? (m.route.errorFormat ?? 'envelope') : 'envelope';
  };
}

export interface Answer {
  readonly statusCode: number;
  readonly body: string;
}

/** What is wrong with an answer, or null: a 5xx, an error outside its envelope, a body that is not JSON. */
export function faultOf(answer: Answer, format: ErrorFormat): string | null {
  if (answer.statusCode >= 500) return `answered ${answer.statusCode}: ${answer.body.slice(0, 300)}`;
  if (answer.statusCode < 400) return null;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `error body is not JSON: ${answer.body.slice(0, 300)}`;
  }
  const record = body as Record<string, unknown>;
  const keys = body && typeof body === 'object' ? Object.keys(record).sort().join(',') : '';
  const isText = (v: unknown) => typeof v === 'string' && v.length > 0;
  if (format === 'oauth') {
    return keys === 'error,error_description' && isText(record.error) && isText(record.error_description)
      ? null
      : `not an OAuth error: ${answer.body.slice(0, 300)}`;
  }
  if (format === 'legacy') {
    return keys === 'error,message,request_id' && isText(record.error) && isText(record.message) ? null : `not a v0.9 error: ${answer.body.slice(0, 300)}`;
  }
  const error = record.error as Record<string, unknown> | undefined;
  const ok =
    keys === 'error' &&
    error !== undefined &&
    Object.keys(error).sort().join(',') === 'code,details,message' &&
    isText(error.code) &&
    isText(error.message) &&
    typeof error.details === 'object' &&
    error.details !== null &&
    !Array.isArray(error.details);
  return ok ? null : `not in the v1.0 envelope: ${answer.body.slice(0, 300)}`;
}
