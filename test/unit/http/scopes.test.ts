import { readFileSync } from 'node:fs';
import { documentedRoutes } from '../../../scripts/openapi-document.js';
import { publishedScopeTable, renderScopeTable, SCOPE_TABLE_FILE } from '../../../scripts/scope-table.js';
import { formatScopes } from '../../../shared/domain/scopes.js';

/**
 * One rule for scopes: where the interface (section 4) states an endpoint's scopes, those; elsewhere reads need
 * `read` and changes `read write`. A stated `write` alone is `read write` (tokens are issued `read write` or
 * `read write admin`, so no token holds `write` without `read`).
 */
const STATED: Readonly<Record<string, string>> = {
  'GET /o/apps/': 'read write',
  'POST /o/apps/': 'read write',
  'DELETE /o/apps/{id}/': 'read write',
  'GET /currencies/': 'read',
  'GET /rates/': 'read',
  'GET /rates/{currency}/': 'read',
  'POST /rates/calculate/': 'read',
  'POST /payments/': 'read write',
  'GET /payments/': 'read',
  'POST /withdrawal/validate-address/': 'read write',
  'POST /withdrawal/estimate/': 'read write',
  'GET /user/me/': 'read',
  'GET /user/balances/': 'read write',
  'GET /user/balances/history/': 'read',
  'GET /user/fees/': 'admin',
  'POST /user/webhooks/': 'read write',
};

/** POST endpoints that only read or compute (no state changes): reads by the rule. */
const READING_POSTS = new Set([
  'POST /payments/status/',
  'POST /payments/estimate/',
  'POST /withdrawal/status/',
  'POST /withdrawal/fee-estimate/',
  'POST /withdrawal/min-amount/',
  'POST /wallets/balances/',
  'POST /wallets/transfer-history/',
]);

const expected = (key: string, method: string): string => STATED[key] ?? (method === 'GET' || READING_POSTS.has(key) ? 'read' : 'read write');

describe('scopes', () => {
  const guarded = documentedRoutes().filter((r) => r.auth !== 'public');

  it('every route needs the scopes the interface states for it, else read for reads and read write for changes', () => {
    const actual = Object.fromEntries(guarded.map((r) => [`${r.method} ${r.path}`, formatScopes(r.scopes ?? [])]));
    const wanted = Object.fromEntries(guarded.map((r) => [`${r.method} ${r.path}`, expected(`${r.method} ${r.path}`, r.method)]));
    expect(actual).toEqual(wanted);
    for (const key of Object.keys(STATED)) expect(actual).toHaveProperty([key]);
  });

  it('docs/requests.md publishes the route x scope table generated from the routes (npx tsx scripts/scope-table.ts)', () => {
    expect(publishedScopeTable(readFileSync(SCOPE_TABLE_FILE, 'utf8'))).toBe(renderScopeTable());
  });
});
