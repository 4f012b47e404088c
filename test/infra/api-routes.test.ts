import { API_FUNCTIONS } from '../../infra/definition.js';
import { compileRoute, Router } from '../../infra/local/http/router.js';
import type { AnyRoute } from '../../shared/http/route.js';
import { otherSlashForm } from '../../shared/http/router.js';
import { API_ROUTE_TABLES, samplePath } from '../support/route-tables.js';

/**
 * API Gateway in front of the Lambdas (the route keys of infra/definition.ts, deployed as they are: see
 * gateway-stack.test.ts; selected as infra/local/http/router.ts does, like API Gateway): both spellings of
 * every path of a Lambda's route table reach that Lambda, whose router then answers them.
 */
const gateway = new Router(API_FUNCTIONS.flatMap((f) => f.routes.map((key) => compileRoute(key, { name: f.name }))));

describe('API routes', () => {
  const cases = Object.entries(API_ROUTE_TABLES).flatMap(([name, routes]) =>
    (routes as readonly AnyRoute[]).flatMap((r) =>
      [r.path, otherSlashForm(r.path)].filter((p): p is string => p !== null).map((p) => [name, r.method, samplePath(p)] as const),
    ),
  );

  it.each(cases)('%s receives %s %s', (name, method, path) => {
    expect(gateway.match(method, path)?.route.target.name).toBe(name);
  });

  it('sends GET /payments (no slash) to the payments function, and paths no group claims to $default', () => {
    expect(gateway.match('GET', '/payments')?.route.target.name).toBe('payments');
    expect(gateway.match('GET', '/nowhere')?.route.target.name).toBe('not-found');
  });
});
