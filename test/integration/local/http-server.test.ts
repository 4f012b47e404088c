import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { request } from 'node:http';
import { startHttpServer } from '../../../infra/local/http-server.js';
import type { HttpFunction, LocalHttpServer } from '../../../infra/local/http-server.js';

/** The API Gateway stand-in: requests become the exact v2 events API Gateway sends, answers go back as it would. */

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function send(base: string, method: string, path: string, options: { headers?: [string, string][]; body?: string | Buffer } = {}): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    // Raw header list (duplicates kept); Node adds no Host header to a raw list.
    const flat: string[] = ['Host', url.host];
    if (options.body !== undefined) flat.push('Content-Length', String(Buffer.byteLength(options.body)));
    for (const [k, v] of options.headers ?? []) flat.push(k, v);
    const req = request({ host: url.hostname, port: url.port, method, path, headers: flat }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const events: { fn: string; event: APIGatewayProxyEventV2 }[] = [];
const lastEvent = (): APIGatewayProxyEventV2 => {
  const last = events[events.length - 1];
  if (!last) throw new Error('no event received');
  return last.event;
};
const recorder =
  (fn: string) =>
  (event: APIGatewayProxyEventV2): unknown => {
    events.push({ fn, event });
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fn }) };
  };

const functions: HttpFunction[] = [
  { name: 'orders', routes: ['ANY /orders', 'ANY /orders/{proxy+}'], handler: recorder('orders') },
  { name: 'order-items', routes: ['ANY /orders/special/{proxy+}'], handler: recorder('order-items') },
  { name: 'exact', routes: ['ANY /orders/latest', 'GET /things/{id}'], handler: recorder('exact') },
  { name: 'fallback', routes: ['$default'], handler: recorder('fallback') },
  {
    name: 'answers',
    routes: ['ANY /answers/{proxy+}'],
    handler: (event) => {
      switch (event.rawPath) {
        case '/answers/string':
          return 'plain text';
        case '/answers/object':
          return { hello: 'world' };
        case '/answers/binary':
          return {
            statusCode: 201,
            headers: { 'Content-Type': 'application/octet-stream' },
            body: Buffer.from([0, 1, 2, 255]).toString('base64'),
            isBase64Encoded: true,
          };
        case '/answers/cookies':
          return { statusCode: 204, headers: { 'X-Custom': 'a' }, cookies: ['a=1; Path=/', 'b=2; HttpOnly'], multiValueHeaders: { 'x-multi': ['1', '2'] } };
        case '/answers/throw':
          throw new Error('boom');
        default:
          return { statusCode: 'bad' };
      }
    },
  },
  { name: 'missing', routes: ['ANY /missing'], entry: 'functions/does-not-exist/handler.ts' },
];

let server: LocalHttpServer;
const logs: string[] = [];

beforeAll(async () => {
  server = await startHttpServer({ port: 0, functions, maxBodyBytes: 1024, log: (l) => logs.push(l) });
}, 30_000);
afterAll(() => server?.close());

describe('request -> API Gateway v2 event', () => {
  it('keeps the trailing slash in rawPath and routes /x/ to the ANY /x route', async () => {
    await send(server.url, 'GET', '/orders/');
    const event = lastEvent();
    expect(event.rawPath).toBe('/orders/');
    expect(event.routeKey).toBe('ANY /orders');
    expect(event.requestContext.http.path).toBe('/orders/');
    expect(event.pathParameters).toBeUndefined();

    await send(server.url, 'GET', '/orders');
    expect(lastEvent().rawPath).toBe('/orders');
    expect(lastEvent().routeKey).toBe('ANY /orders');
  });

  it('passes the greedy path parameter, trailing slash included', async () => {
    await send(server.url, 'DELETE', '/orders/abc/items/');
    const event = lastEvent();
    expect(event.routeKey).toBe('ANY /orders/{proxy+}');
    expect(event.pathParameters).toEqual({ proxy: 'abc/items/' });
    expect(event.requestContext.http.method).toBe('DELETE');
  });

  it('prefers exact routes, then {param} routes, then the longest greedy prefix', async () => {
    await send(server.url, 'GET', '/orders/latest');
    expect(events[events.length - 1]?.fn).toBe('exact');
    expect(lastEvent().routeKey).toBe('ANY /orders/latest');

    await send(server.url, 'GET', '/orders/special/1');
    expect(events[events.length - 1]?.fn).toBe('order-items');
    expect(lastEvent().pathParameters).toEqual({ proxy: '1' });

    await send(server.url, 'GET', '/things/42');
    expect(lastEvent().routeKey).toBe('GET /things/{id}');
    expect(lastEvent().pathParameters).toEqual({ id: '42' });
    // Another method is not that route: $default takes it.
    await send(server.url, 'POST', '/things/42');
    expect(lastEvent().routeKey).toBe('$default');
  });

  it('sends unmatched paths to $default', async () => {
    const reply = await send(server.url, 'GET', '/nothing/here/?x=1');
    expect(JSON.parse(reply.body.toString())).toEqual({ fn: 'fallback' });
    const event = lastEvent();
    expect(event.routeKey).toBe('$default');
    expect(event.requestContext.routeKey).toBe('$default');
    expect(event.rawPath).toBe('/nothing/here/');
    expect(event.pathParameters).toBeUndefined();
  });

  it('builds query parameters, headers, cookies and the request context like API Gateway', async () => {
    await send(server.url, 'GET', '/orders/q?limit=10&tag=a&tag=b&name=J%C3%B6rg+X&flag', {
      headers: [
        ['X-Custom-Header', 'One'],
        ['x-custom-header', 'Two'],
        ['User-Agent', 'jest-test/1.0'],
        ['Cookie', 'session=abc; theme=dark'],
      ],
    });
    const event = lastEvent();
    expect(event.version).toBe('2.0');
    expect(event.rawQueryString).toBe('limit=10&tag=a&tag=b&name=J%C3%B6rg+X&flag');
    expect(event.queryStringParameters).toEqual({ limit: '10', tag: 'a,b', name: 'Jörg+X', flag: '' });
    expect(event.headers['x-custom-header']).toBe('One,Two');
    expect(Object.keys(event.headers).every((k) => k === k.toLowerCase())).toBe(true);
    expect(event.headers.cookie).toBeUndefined();
    expect(event.cookies).toEqual(['session=abc', 'theme=dark']);
    expect(event.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(event.headers['x-forwarded-proto']).toBe('http');
    const ctx = event.requestContext;
    expect(ctx.http.sourceIp).toBe('127.0.0.1');
    expect(ctx.http.userAgent).toBe('jest-test/1.0');
    expect(ctx.http.protocol).toBe('HTTP/1.1');
    expect(ctx.stage).toBe('$default');
    expect(ctx.routeKey).toBe('ANY /orders/{proxy+}');
    expect(ctx.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ctx.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(typeof ctx.timeEpoch).toBe('number');
    expect(ctx.accountId).toBeTruthy();
    expect(ctx.apiId).toBeTruthy();
    expect(ctx.domainName).toBe(new URL(server.url).host);
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
  });

  it('omits query parameters and cookies when there are none', async () => {
    await send(server.url, 'GET', '/orders/x');
    const event = lastEvent();
    expect(event.rawQueryString).toBe('');
    expect('queryStringParameters' in event).toBe(false);
    expect('cookies' in event).toBe(false);
  });

  it('passes a JSON body as a UTF-8 string', async () => {
    const body = JSON.stringify({ amount: 25.1, note: 'Grüße' });
    await send(server.url, 'POST', '/orders/', { headers: [['Content-Type', 'application/json; charset=utf-8']], body });
    const event = lastEvent();
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBe(body);
  });

  it('base64-encodes form bodies, multipart and bodies without a content type', async () => {
    const form = 'grant_type=client_credentials&client_id=abc';
    await send(server.url, 'POST', '/orders/token/', { headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: form });
    expect(lastEvent().isBase64Encoded).toBe(true);
    expect(lastEvent().body).toBe(Buffer.from(form).toString('base64'));

    await send(server.url, 'POST', '/orders/upload', { headers: [['Content-Type', 'multipart/form-data; boundary=x']], body: '--x--' });
    expect(lastEvent().isBase64Encoded).toBe(true);

    await send(server.url, 'POST', '/orders/raw', { body: Buffer.from([1, 2, 3]) });
    expect(lastEvent().headers['content-type']).toBeUndefined();
    expect(lastEvent().isBase64Encoded).toBe(true);
    expect(lastEvent().body).toBe('AQID');

    await send(server.url, 'POST', '/orders/text', { headers: [['Content-Type', 'text/plain']], body: 'hi' });
    expect(lastEvent().isBase64Encoded).toBe(false);
    expect(lastEvent().body).toBe('hi');
  });

  it('answers 413 above the payload limit without calling the handler', async () => {
    const before = events.length;
    const reply = await send(server.url, 'POST', '/orders/', { headers: [['Content-Type', 'application/json']], body: 'x'.repeat(2048) });
    expect(reply.status).toBe(413);
    expect(events.length).toBe(before);
  });
});

describe('result -> response (payload format 2.0)', () => {
  it('answers a string result as a 200 JSON body, as is', async () => {
    const reply = await send(server.url, 'GET', '/answers/string');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.body.toString()).toBe('plain text');
  });

  it('serialises an object without statusCode', async () => {
    const reply = await send(server.url, 'GET', '/answers/object');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.toString())).toEqual({ hello: 'world' });
  });

  it('decodes a base64 body', async () => {
    const reply = await send(server.url, 'GET', '/answers/binary');
    expect(reply.status).toBe(201);
    expect([...reply.body]).toEqual([0, 1, 2, 255]);
  });

  it('turns cookies into Set-Cookie headers and keeps multi-value headers', async () => {
    const reply = await send(server.url, 'GET', '/answers/cookies');
    expect(reply.status).toBe(204);
    expect(reply.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
    expect(reply.headers['x-custom']).toBe('a');
    expect(reply.headers['x-multi']).toBe('1, 2');
  });

  it('answers 500 like API Gateway when the handler throws or answers garbage', async () => {
    for (const path of ['/answers/throw', '/answers/garbage']) {
      const reply = await send(server.url, 'GET', path);
      expect(reply.status).toBe(500);
      expect(JSON.parse(reply.body.toString())).toEqual({ message: 'Internal Server Error' });
    }
  });

  it('answers 502 with the reason when a handler module cannot be loaded', async () => {
    const reply = await send(server.url, 'GET', '/missing');
    expect(reply.status).toBe(502);
    const body = JSON.parse(reply.body.toString()) as { message: string; error: string };
    expect(body.message).toBe('Internal Server Error');
    expect(body.error).toContain('missing');
    expect(logs.some((l) => l.includes('functions/does-not-exist/handler.ts'))).toBe(true);
  });
});
