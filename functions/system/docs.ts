import { config } from '../../shared/config/config.js';
import { buildOpenApi } from '../../shared/http/openapi.js';
import { ok, route } from '../../shared/http/route.js';
import { allRoutes } from './catalog.js';
import { DOCS_PAGE } from './docs-page.js';

let document: object | undefined;

export const docsRoutes = [
  route({
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    doc: { summary: 'This OpenAPI 3.1 document', tags: ['System'], responses: { 200: { description: 'OpenAPI document' } } },
    handle: async () => {
      // Built once per container from the same schemas that validate requests.
      document ??= buildOpenApi(allRoutes(), { title: 'Crypto Payment Gateway', version: '1.0.0', serverUrl: config().PUBLIC_BASE_URL });
      return ok(document, { 'Cache-Control': 'public, max-age=300' });
    },
  }),
  route({
    method: 'GET',
    path: '/docs/',
    auth: 'public',
    doc: { summary: 'A page that renders the OpenAPI document', tags: ['System'], responses: { 200: { description: 'HTML' } } },
    handle: async () => ({ status: 200, body: DOCS_PAGE, headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
  }),
];
