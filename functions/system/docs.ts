import { readFile } from 'node:fs/promises';
import { GatewayError } from '../../shared/domain/errors.js';
import { escapeHtml } from '../../shared/http/public-pages.js';
import { ok, routesOf } from '../../shared/http/route.js';
import type { SystemDeps } from '../../shared/runtime/system.js';
import { acceptsGzip, referenceBundle } from './reference-bundle.js';

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

/**
 * `/docs/` is rendered in the browser by Scalar's API reference (reference-bundle.ts), loaded from this origin, with
 * `/openapi.json`. The policy lets the page run its one script from this origin and fetch from it alone (the
 * document; the reference's request client too), and nothing from anywhere else: no CDN, no web fonts (Scalar's own,
 * from fonts.scalar.com, are turned off: `withDefaultFonts: false`). Styles allow 'unsafe-inline' because the
 * reference injects its style sheet and theme as `<style>` elements and sets `style` attributes at run time.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The reference's settings (its HTML API: `data-configuration` on the `#api-reference` element): no web fonts, and
 * none of the parts that call Scalar's services (its AI agent, MCP generation, its developer toolbar), which it
 * would otherwise show when the page is opened on localhost, so the page is the same on the local stack and deployed.
 */
const REFERENCE_CONFIGURATION = {
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
};

/**
 * No inline script: the `#api-reference` element is empty (nothing runs) and only carries the settings; the bundle,
 * loaded next, mounts the reference before it. Both addresses are relative, so the page works under any base path.
 */
const docsPage = (bundleName: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Crypto Payment Gateway API</title>
<link rel="icon" href="data:,">
</head>
<body>
<script id="api-reference" type="application/json" data-url="../openapi.json" data-configuration="${escapeHtml(JSON.stringify(REFERENCE_CONFIGURATION))}"></script>
<script src="${escapeHtml(bundleName)}"></script>
</body>
</html>
`;

const COMMON_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

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
    handle: async () => ({
      status: 200,
      body: docsPage((await referenceBundle()).name),
      headers: {
        ...COMMON_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
        'Cache-Control': 'public, max-age=300',
      },
    }),
  }),
  // The page's script, named by its content's hash: cached for good, and a page of another version names another.
  route({
    method: 'GET',
    path: '/docs/{asset}',
    auth: 'public',
    handle: async (req) => {
      const bundle = await referenceBundle();
      const asset = req.params.asset;
      if (asset !== bundle.name) throw new GatewayError('not_found', `No endpoint at ${req.path}.`, { path: req.path });
      const gzip = acceptsGzip(req.headers['accept-encoding']);
      return {
        status: 200,
        body: gzip ? bundle.gzip() : bundle.plain,
        headers: {
          ...COMMON_HEADERS,
          'Content-Type': 'text/javascript; charset=utf-8',
          'Cache-Control': 'public, max-age=31536000, immutable',
          Vary: 'Accept-Encoding',
          ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
        },
      };
    },
  }),
];
