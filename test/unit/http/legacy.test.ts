import { readFileSync } from 'node:fs';
import { renderV1Endpoints, V1_ENDPOINTS_FILE } from '../../../scripts/v1-endpoints.js';
import { handler as legacy } from '../../../functions/legacy/handler.js';
import type { AnyRoute, Method } from '../../../shared/http/route.js';
import { slashVariants, spellingsOf } from '../../../shared/http/router.js';
import { API_ROUTE_TABLES, samplePath } from '../../support/route-tables.js';
import { apiEvent, lambdaContext } from './event.js';

/**
 * v0.9 (spec section 9): 410 with the flat body, and a message naming where each endpoint went in v1.0. The v1.0
 * endpoints are the documented routes (not the docs page's script).
 */
const v1Routes = Object.entries(API_ROUTE_TABLES)
  .filter(([name]) => name !== 'legacy')
  .flatMap(([, routes]) => routes as readonly AnyRoute[])
  .filter((r) => r.doc);
const v1Paths = new Set(v1Routes.map((r) => r.path));
const variants = slashVariants(v1Routes);

async function gone(method: Method, path: string): Promise<{ error: string; message: string; request_id: string }> {
  const res = (await legacy(apiEvent(method, path), lambdaContext)) as { statusCode: number; body: string };
  expect(res.statusCode).toBe(410);
  const body = JSON.parse(res.body);
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'request_id']);
  expect(body.error).toBe('deprecated_endpoint');
  return body;
}

/** Every path a message names (a token starting with '/'). */
const pathsNamed = (message: string): string[] => [...message.matchAll(/(?<=^|[\s(])\/[^\s,()]*/g)].map((m) => m[0].replace(/\.$/, ''));

describe('v0.9 endpoints', () => {
  it('take their successors from the committed v1.0 endpoint list, regenerated from the routes (`npm run build:openapi`)', () => {
    expect(readFileSync(V1_ENDPOINTS_FILE, 'utf8')).toBe(renderV1Endpoints());
  });

  it('name the v1.0 endpoint at the same path, as the route table writes it, for every route and both spellings', async () => {
    const V0_METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    for (const route of v1Routes) {
      for (const spelling of spellingsOf(route, variants)) {
        const { message } = await gone(route.method, `/v0${samplePath(spelling)}`);
        expect(message).toContain(`${route.method} ${route.path} `);
        for (const method of V0_METHODS) {
          const other = await gone(method, `/v0${samplePath(spelling)}`);
          for (const named of pathsNamed(other.message)) expect({ message: other.message, named, known: v1Paths.has(named) }).toMatchObject({ known: true });
        }
      }
    }
  });

  it('map the examples: /v0/payments to the payment list and creation, a PUT to the methods the path has', async () => {
    expect((await gone('POST', '/v0/payments')).message).toContain('POST /payments/ with an OAuth 2.0 bearer token');
    expect((await gone('GET', '/v0/payments/')).message).toContain('GET /payments/ with');
    const put = (await gone('PUT', '/v0/payments')).message;
    expect(put).toContain('GET /payments/');
    expect(put).toContain('POST /payments/');
    expect((await gone('DELETE', '/v0/user/webhooks')).message).toContain('DELETE /user/webhooks ');
  });

  it('point to the documentation when there is no successor, and never name a path the v1.0 table lacks', async () => {
    for (const path of ['/v0', '/v0/', '/v0/create-payment', '/v0/payments/a/b/c', '/v0/custody/accounts', '/v0/%E0%A4%A']) {
      const { message } = await gone('POST', path);
      expect(message).toContain('/docs/');
      const named = pathsNamed(message);
      expect(named.length).toBeGreaterThan(0);
      for (const p of named) expect({ path, named: p, known: v1Paths.has(p) }).toMatchObject({ known: true });
    }
  });
});
