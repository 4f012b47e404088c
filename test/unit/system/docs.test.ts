import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { DOCS_CONTENT_SECURITY_POLICY, docsRoutes } from '../../../functions/system/docs.js';
import { REFERENCE_BUNDLE_FILE, REFERENCE_BUNDLE_PRELUDE, acceptsGzip } from '../../../functions/system/reference-bundle.js';
import { systemRoutes } from '../../../functions/system/routes.js';
import { API_FUNCTIONS } from '../../../infra/definition.js';
import { createPublicApi } from '../../../shared/http/public-pipeline.js';
import type { SystemDeps } from '../../../shared/runtime/system.js';
import { apiEvent, lambdaContext } from '../http/event.js';

/** `/docs/`: a page with no inline script under a strict policy, and Scalar's API reference served from this origin. */
const deps: SystemDeps = { table: { ping: async () => undefined }, publicBaseUrl: () => 'https://api.example.test' };
const handler = createPublicApi<SystemDeps>([...systemRoutes, ...docsRoutes], deps);
const get = async (path: string, headers: Record<string, string> = {}) =>
  (await handler(apiEvent('GET', path, { headers }), lambdaContext)) as APIGatewayProxyStructuredResultV2 & { body: string; headers: Record<string, string> };

const packageFile = readFileSync(REFERENCE_BUNDLE_FILE, 'utf8');

/** The policy's directives by name. */
const directives = (policy: string): Record<string, string> =>
  Object.fromEntries(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name = '', ...values]) => [name, values.join(' ')]),
  );

describe('GET /docs/', () => {
  it('answers a page that loads the reference from this origin, under a strict policy', async () => {
    const res = await get('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(res.headers['X-Content-Type-Options']).toBe('nosniff');
    expect(res.headers['Content-Security-Policy']).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect(directives(DOCS_CONTENT_SECURITY_POLICY)).toEqual({
      'default-src': "'none'",
      'script-src': "'self'",
      'connect-src': "'self'",
      'style-src': "'self' 'unsafe-inline'",
      'img-src': "'self' data:",
      'font-src': "'self' data:",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    expect(DOCS_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
  });

  it('holds no inline script: its scripts are the bundle by address and the empty element carrying the settings', async () => {
    const { body } = await get('/docs/');
    const scripts = [...body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map(([, attributes = '', content]) => ({ attributes, content }));
    expect(scripts).toHaveLength(2);
    expect(scripts.map((s) => s.content)).toEqual(['', '']);
    expect(scripts[0]?.attributes).toContain('id="api-reference" type="application/json" data-url="../openapi.json"');
    expect(scripts[1]?.attributes).toMatch(/^ src="scalar\.[0-9a-f]{16}\.js"$/);
    expect(body).not.toMatch(/\son[a-z]+=|style=|https?:/);
    const settings = /data-configuration="([^"]*)"/.exec(body)?.[1] ?? '';
    expect(JSON.parse(settings.replaceAll('&quot;', '"'))).toMatchObject({
      withDefaultFonts: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    });
  });
});

describe('GET /docs/<bundle>', () => {
  const bundlePath = async () => `/docs/${/src="(scalar\.[0-9a-f]{16}\.js)"/.exec((await get('/docs/')).body)?.[1] ?? 'missing'}`;

  it('answers the package file after its prelude, gzipped for a client that accepts it, cached for good', async () => {
    const res = await get(await bundlePath(), { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Encoding': 'gzip',
      'Cache-Control': 'public, max-age=31536000, immutable',
      Vary: 'Accept-Encoding',
      'X-Content-Type-Options': 'nosniff',
    });
    expect(res.isBase64Encoded).toBe(true);
    const served = gunzipSync(Buffer.from(res.body, 'base64')).toString('utf8');
    expect(served).toBe(REFERENCE_BUNDLE_PRELUDE + packageFile);
    // Well under Lambda's 6 MB answer, which the plain file in base64 would near.
    expect(res.body.length).toBeLessThan(2_000_000);
  });

  it('answers it as text to a client that does not accept gzip', async () => {
    const res = await get(await bundlePath());
    expect(res.statusCode).toBe(200);
    expect(res.headers['Content-Encoding']).toBeUndefined();
    expect(res.headers['Cache-Control']).toBe('public, max-age=31536000, immutable');
    expect(res.isBase64Encoded).toBeUndefined();
    expect(res.body).toBe(REFERENCE_BUNDLE_PRELUDE + packageFile);
  });

  it('answers 404 for any other name under /docs/', async () => {
    for (const path of ['/docs/scalar.0000000000000000.js', '/docs/standalone.js', '/docs/openapi.json', '/docs/x/y']) {
      const res = await get(path, { 'accept-encoding': 'gzip' });
      expect({ path, status: res.statusCode, code: (JSON.parse(res.body) as { error?: { code?: string } }).error?.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
    }
  });

  it('ships beside the system Lambda as a file of its definition', () => {
    expect(API_FUNCTIONS.find((f) => f.name === 'system')?.files).toContain(REFERENCE_BUNDLE_FILE);
  });
});

test('acceptsGzip reads Accept-Encoding with its qualities', () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['deflate, gzip;q=0.5', true],
    ['GZIP', true],
    ['x-gzip', true],
    ['*', true],
    ['br, deflate', false],
    ['gzip;q=0', false],
    ['gzip; q=0.000', false],
    ['identity', false],
  ];
  expect(cases.map(([header]) => [header, acceptsGzip(header)])).toEqual(cases);
});
