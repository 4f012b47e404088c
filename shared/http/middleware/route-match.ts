import { GatewayError } from '../../domain/errors.js';
import type { AnyRoute } from '../route.js';
import { createRouter } from '../router.js';
import type { Middleware, MiddyRequest } from './request.js';
import { stateOf } from './request.js';

/** Routing on method + rawPath: 404 for an unknown path, 405 with `Allow` for a known path and another method. */
export function routeMatch(routes: readonly AnyRoute[]): Middleware {
  const find = createRouter(routes);
  return {
    before: (request: MiddyRequest) => {
      const state = stateOf(request);
      const method = request.event.requestContext.http.method.toUpperCase();
      const found = find(method, request.event.rawPath);
      if (found.kind === 'not_found') throw new GatewayError('not_found', `No endpoint at ${request.event.rawPath}.`, { path: request.event.rawPath });
      if (found.kind === 'method_not_allowed') {
        state.headers.Allow = found.allow.join(', ');
        throw new GatewayError('method_not_allowed', `${method} is not allowed on ${request.event.rawPath}.`, { allowed_methods: found.allow });
      }
      state.route = found.route;
      state.params = found.params;
    },
  };
}
