import { docTable, isMainScript, publishedTable, REQUESTS_PAGE, writeTable } from './doc-table.js';
import { formatScopes } from '../shared/domain/scopes.js';
import { documentedRoutes } from './openapi-document.js';

/**
 * The route x scope table of docs/requests.md ("Scopes"), generated from the route definitions.
 * `npx tsx scripts/scope-table.ts` rewrites it between its markers; test/unit/http/scopes.test.ts fails while the
 * page's table differs from the routes.
 */

export const SCOPE_TABLE_FILE = REQUESTS_PAGE;
const TABLE = docTable(SCOPE_TABLE_FILE, 'scope-table', 'scope-table.ts');

const AUTH: Record<string, string> = { public: 'none', bearer: 'Bearer', 'bearer-or-api-key': 'Bearer or `X-API-Key`' };

export function renderScopeTable(): string {
  const rows = documentedRoutes()
    .filter((r) => r.auth !== 'public')
    .map((r) => `| ${r.method} | \`${r.path}\` | ${AUTH[r.auth] ?? r.auth} | \`${formatScopes(r.scopes ?? [])}\` |`);
  return ['| Method | Path | Credential | Scopes |', '|---|---|---|---|', ...rows].join('\n');
}

/** The table as the page holds it now (between the markers), or null without markers. */
export const publishedScopeTable = (page: string): string | null => publishedTable(page, TABLE);

if (isMainScript(import.meta.url)) writeTable(TABLE, renderScopeTable());
