import { readFile } from 'node:fs/promises';
import { ok, routesOf } from '../../shared/http/route.js';
import type { SystemDeps } from '../../shared/runtime/system.js';
import { DOCS_PAGE } from './docs-page.js';

const route = routesOf<Pick<SystemDeps, 'publicBaseUrl'>>();

/**
 * The document generated at build time (npm run build:openapi), read when first asked from beside this module: in
 * the Lambda, the file is shipped next to the bundle rather than in it (infra/definition.ts `files`), so a cold
 * start does not parse its 140 KB.
 */
let generated: Promise<object> | undefined;
const generatedDocument = (): Promise<object> =>
  (generated ??= readFile(new URL('./openapi.json', import.meta.url), 'utf8').then(
    (text) => JSON.parse(text) as object,
    (error: unknown) => {
      generated = undefined;
      throw error;
    },
  ));

/** The generated document with this deployment's address. */
const documentFor = async (serverUrl: string | undefined): Promise<object> => ({
  ...(await generatedDocument()),
  servers: serverUrl ? [{ url: serverUrl }] : [],
});

export const docsRoutes = [
  route({
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    doc: { summary: 'This OpenAPI 3.1 document', tags: ['System'], responses: { 200: { description: 'OpenAPI document' } } },
    handle: async (_req, deps) => ok(await documentFor(deps.publicBaseUrl()), { 'Cache-Control': 'public, max-age=300' }),
  }),
  route({
    method: 'GET',
    path: '/docs/',
    auth: 'public',
    doc: { summary: 'A page that renders the OpenAPI document', tags: ['System'], responses: { 200: { description: 'HTML' } } },
    handle: async () => ({ status: 200, body: DOCS_PAGE, headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
  }),
];
