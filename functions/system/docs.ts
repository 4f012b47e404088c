import { ok, routesOf } from '../../shared/http/route.js';
import type { SystemDeps } from '../../shared/runtime/system.js';
import { DOCS_PAGE } from './docs-page.js';
import generated from './openapi.json' with { type: 'json' };

const route = routesOf<Pick<SystemDeps, 'publicBaseUrl'>>();

/** The document generated at build time (npm run build:openapi), with this deployment's address. */
const documentFor = (serverUrl: string | undefined): object => ({ ...generated, servers: serverUrl ? [{ url: serverUrl }] : [] });

export const docsRoutes = [
  route({
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    doc: { summary: 'This OpenAPI 3.1 document', tags: ['System'], responses: { 200: { description: 'OpenAPI document' } } },
    handle: async (_req, deps) => ok(documentFor(deps.publicBaseUrl()), { 'Cache-Control': 'public, max-age=300' }),
  }),
  route({
    method: 'GET',
    path: '/docs/',
    auth: 'public',
    doc: { summary: 'A page that renders the OpenAPI document', tags: ['System'], responses: { 200: { description: 'HTML' } } },
    handle: async () => ({ status: 200, body: DOCS_PAGE, headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
  }),
];
