import { GatewayError } from '../../shared/domain/errors.js';
import { routesOf, type Method } from '../../shared/http/route.js';

/** v0.9 (spec section 9): every `/v0/...` endpoint answers 410 with the flat v0.9 error body. Needs nothing. */
export type LegacyDeps = Record<string, never>;

const route = routesOf<LegacyDeps>();

const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const gone = (path: string) =>
  METHODS.map((method) =>
    route({
      method,
      path,
      auth: 'public',
      errorFormat: 'legacy',
      doc:
        method === 'GET' && path === '/v0/{rest+}'
          ? { summary: 'v0.9 endpoints (deprecated): 410 deprecated_endpoint', tags: ['Versioning'], responses: { 410: { description: 'Deprecated' } } }
          : undefined,
      handle: async (req) => {
        throw new GatewayError(
          'deprecated_endpoint',
          `API v0.9 is no longer available. Use the v1.0 endpoint ${req.path.replace(/^\/v0/, '') || '/'} with an OAuth 2.0 bearer token.`,
        );
      },
    }),
  );

export const legacyRoutes = [...gone('/v0'), ...gone('/v0/{rest+}')];
