import { API_FUNCTIONS } from '../../../infra/definition.js';
import { documentedRoutes } from '../../../scripts/openapi-document.js';
import type { AnyRoute } from '../../../shared/http/route.js';
import { createRouter, otherSlashForm, slashVariants, spellingsOf } from '../../../shared/http/router.js';
import { API_ROUTE_TABLES, samplePath } from '../../support/route-tables.js';

/**
 * The trailing-slash rule, checked on every route of every API Lambda's table: a route answers its path with
 * and without the trailing slash, except where the table holds both spellings (the slash picks a variant).
 */
const tables = Object.entries(API_ROUTE_TABLES) as [string, readonly AnyRoute[]][];

describe('router: the trailing slash', () => {
  it('has a table for every API function of infra/definition.ts, holding every documented route', () => {
    // Public pages (the hosted checkout, the refund claim page) are served without the API pipeline: no route table.
    const pipelined = API_FUNCTIONS.filter((f) => f.access === undefined);
    expect(Object.keys(API_ROUTE_TABLES).sort()).toEqual(pipelined.map((f) => f.name).sort());
    const all = new Set(tables.flatMap(([, routes]) => routes));
    for (const route of documentedRoutes()) expect(all.has(route as AnyRoute)).toBe(true);
  });

  it.each(tables)('%s: every route answers both spellings of its path, except the variant pairs', (_name, routes) => {
    const find = createRouter(routes);
    const variants = slashVariants(routes);
    for (const route of routes) {
      const other = otherSlashForm(route.path);
      const spellings = spellingsOf(route, variants);
      expect(spellings).toEqual(other === null || variants.has(route.path) ? [route.path] : [route.path, other]);
      for (const spelling of spellings) {
        const found = find(route.method, samplePath(spelling));
        expect({ spelling, method: route.method, found: found.kind === 'found' ? found.route.path : found.kind }).toEqual({
          spelling,
          method: route.method,
          found: route.path,
        });
      }
      if (other !== null && variants.has(route.path)) {
        // The other spelling is another endpoint: never this route.
        const found = find(route.method, samplePath(other));
        expect(found.kind === 'found' ? found.route.path : other).toBe(other);
      }
    }
  });

  it('keeps both spellings exact where the slash picks a variant: /user/webhooks/ (A) and /user/webhooks (B)', () => {
    const user = API_ROUTE_TABLES.user as readonly AnyRoute[];
    expect([...slashVariants(user)].sort()).toEqual(['/user/webhooks', '/user/webhooks/']);
    const find = createRouter(user);
    const at = (method: string, path: string) => {
      const m = find(method, path);
      return m.kind === 'found' ? `${m.route.method} ${m.route.path}` : m.kind === 'method_not_allowed' ? { allow: [...m.allow].sort() } : m;
    };
    expect(at('PATCH', '/user/webhooks/')).toBe('PATCH /user/webhooks/');
    expect(at('GET', '/user/webhooks/')).toBe('GET /user/webhooks/');
    expect(at('GET', '/user/webhooks')).toBe('GET /user/webhooks');
    expect(at('DELETE', '/user/webhooks')).toBe('DELETE /user/webhooks');
    expect(at('PATCH', '/user/webhooks')).toEqual({ allow: ['DELETE', 'GET', 'POST'] });
    expect(at('DELETE', '/user/webhooks/')).toEqual({ allow: ['GET', 'PATCH', 'POST'] });
    // Below the pair, the rule holds again.
    expect(at('GET', '/user/webhooks/deliveries')).toBe('GET /user/webhooks/deliveries/');
  });

  it('serves GET /payments and a custody-style path written without the slash in both spellings', () => {
    const payments = createRouter(API_ROUTE_TABLES.payments as readonly AnyRoute[]);
    const list = payments('GET', '/payments');
    expect(list.kind === 'found' && `${list.route.method} ${list.route.path}`).toBe('GET /payments/');
    const status = payments('POST', '/payments/status');
    expect(status.kind === 'found' && status.route.path).toBe('/payments/status/');
    const custody = createRouter([
      { method: 'GET', path: '/custody/accounts' },
      { method: 'GET', path: '/custody/accounts/{accountId}' },
    ] as const);
    const detail = custody('GET', '/custody/accounts/abc/');
    expect(detail).toEqual({ kind: 'found', route: { method: 'GET', path: '/custody/accounts/{accountId}' }, params: { accountId: 'abc' } });
    expect(custody('GET', '/custody/accounts/').kind).toBe('found');
  });

  it('prefers a path as written over another route answering the other spelling', () => {
    const find = createRouter([
      { method: 'GET', path: '/a/{id}' },
      { method: 'GET', path: '/a/b/' },
    ] as const);
    expect(find('GET', '/a/b')).toMatchObject({ kind: 'found', route: { path: '/a/{id}' } });
    expect(find('GET', '/a/b/')).toMatchObject({ kind: 'found', route: { path: '/a/b/' } });
  });

  it('keeps a path parameter that is not valid percent-encoding as sent, for the route to judge (no exception)', () => {
    const find = createRouter([{ method: 'GET', path: '/a/{id}/' }] as const);
    expect(find('GET', '/a/%E0%A4%A/')).toMatchObject({ kind: 'found', params: { id: '%E0%A4%A' } });
    expect(find('GET', '/a/caf%C3%A9/')).toMatchObject({ kind: 'found', params: { id: 'café' } });
  });
});
