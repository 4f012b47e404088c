import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docsRoutes } from '../functions/system/docs.js';
import { documentedRoutes } from './openapi-document.js';

/**
 * The v1.0 endpoints (method and path template as the route tables write them) for the v0.9 Lambda, which
 * names each v0.9 endpoint's successor in its 410 message (functions/legacy/routes.ts) and may not import
 * other functions. Written by `npm run build:openapi`; test/unit/http/legacy.test.ts fails while it is stale.
 */
export const V1_ENDPOINTS_FILE = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'functions', 'legacy', 'v1-endpoints.json');

export function renderV1Endpoints(): string {
  // The docs page's script (`GET /docs/{asset}`) is no endpoint of the interface: undocumented, it is nobody's successor.
  const endpoints = [...documentedRoutes(), ...docsRoutes.filter((r) => r.doc)]
    .filter((r) => r.path !== '/v0' && !r.path.startsWith('/v0/'))
    .map((r) => ({ method: r.method, path: r.path }));
  return `${JSON.stringify(endpoints, null, 2)}\n`;
}
