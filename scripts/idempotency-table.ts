import { docTable, isMainScript, publishedTable, REQUESTS_PAGE, writeTable } from './doc-table.js';
import { documentedRoutes } from './openapi-document.js';

/**
 * The list of endpoints that honour `Idempotency-Key` in docs/requests.md ("Idempotency"), generated from the routes'
 * `idempotent` flag. `npx tsx scripts/idempotency-table.ts` rewrites it between its markers;
 * test/unit/http/idempotency-table.test.ts fails while the page's list differs from the routes.
 */

export const IDEMPOTENCY_TABLE_FILE = REQUESTS_PAGE;
const TABLE = docTable(IDEMPOTENCY_TABLE_FILE, 'idempotency-table', 'idempotency-table.ts');

/** `METHOD /path` of every route that honours `Idempotency-Key`, in the documented order. */
export function idempotentEndpoints(): string[] {
  return documentedRoutes()
    .filter((r) => r.idempotent === true)
    .map((r) => `${r.method} ${r.path}`);
}

export function renderIdempotencyTable(): string {
  const rows = documentedRoutes()
    .filter((r) => r.idempotent === true)
    .map((r) => `| ${r.method} | \`${r.path}\` |`);
  return ['| Method | Path |', '|---|---|', ...rows].join('\n');
}

/** The table as the page holds it now (between the markers), or null without markers. */
export const publishedIdempotencyTable = (page: string): string | null => publishedTable(page, TABLE);

if (isMainScript(import.meta.url)) writeTable(TABLE, renderIdempotencyTable());
