import { readFileSync } from 'node:fs';
import { IDEMPOTENCY_TABLE_FILE, idempotentEndpoints, publishedIdempotencyTable, renderIdempotencyTable } from '../../../scripts/idempotency-table.js';
import { API_ROUTE_TABLES } from '../../support/route-tables.js';

/**
 * One rule for `Idempotency-Key`: every authenticated request that creates something or moves money honours it, through
 * the route's `idempotent` flag (shared/http/middleware/idempotency.ts); the others are named here with why they
 * need no key. A new POST, PATCH, PUT or DELETE must be put on one side or the other.
 */
const NEEDS_NO_KEY: Readonly<Record<string, string>> = {
  'POST /o/apps/': 'creates credentials whose secret is shown once: a replay would have to store the secret',
  'DELETE /o/apps/{id}/': 'deletes; a repeat finds nothing to delete',
  'POST /rates/calculate/': 'computes',
  'POST /user/webhooks/': 'sets the webhook settings; a repeat sets the same',
  'PATCH /user/webhooks/': 'sets the webhook settings; a repeat sets the same',
  'PATCH /user/me/': 'sets the settings the tenant sets itself; a repeat sets the same',
  'POST /user/webhooks/test/': 'sends a test event; moves nothing',
  'POST /user/webhooks': 'a subscription is unique per URL (a repeat is refused)',
  'DELETE /user/webhooks': 'deletes; a repeat finds nothing to delete',
  'POST /user/webhooks/deliveries/{delivery_id}/redeliver/': 'sends an event again; moves nothing',
  'POST /payments/status/': 'reads',
  'POST /payments/estimate/': 'computes',
  'PATCH /payments/{transaction_id}/': 'sets descriptive fields; a repeat sets the same',
  'PATCH /payment-links/{link_id}/': "sets a link's fields; a repeat sets the same",
  'POST /payments/{transaction_id}/cancel/': 'a waiting payment without a deposit holds no money; a repeat is 409 invalid_state',
  'POST /withdrawal/validate-address/': 'computes',
  'POST /withdrawal/estimate/': 'computes',
  'POST /withdrawal/fee-estimate/': 'computes',
  'POST /withdrawal/min-amount/': 'computes',
  'POST /withdrawal/status/': 'reads',
  'POST /wallets/balances/': 'reads',
  'POST /wallets/transfer-history/': 'reads',
  'PATCH /wallets/{wallet_id}/': 'sets descriptive fields; a repeat sets the same',
  'DELETE /wallets/{wallet_id}/': 'only an empty wallet is deleted; a repeat finds nothing to delete',
  'POST /custody/accounts/{accountId}/sync': 'reads the chain again; deposits are credited once by their natural id',
};

const changes = Object.values(API_ROUTE_TABLES)
  .flat()
  .filter((r) => r.method !== 'GET' && r.auth !== 'public');
const name = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

describe('Idempotency-Key', () => {
  it('every authenticated change either honours it or is named with why it needs no key', () => {
    const idempotent = changes.filter((r) => r.idempotent).map(name);
    const other = changes.filter((r) => !r.idempotent).map(name);
    expect(other.sort()).toEqual(Object.keys(NEEDS_NO_KEY).sort());
    expect(idempotent.filter((e) => e in NEEDS_NO_KEY)).toEqual([]);
  });

  it('is honoured by every POST that creates or moves money', () => {
    expect([...idempotentEndpoints()].sort()).toEqual(
      [
        'POST /payment-links/',
        'POST /payment-links/{link_id}/deactivate/',
        'POST /payments/',
        'POST /payments/{transaction_id}/refunds/',
        'POST /refunds/{refund_id}/cancel/',
        'POST /plans/',
        'POST /subscriptions/',
        'POST /subscriptions/{subscription_id}/cancel/',
        'POST /withdrawal/',
        'POST /withdrawal/{withdrawal_id}/cancel/',
        'POST /wallets/',
        'POST /wallets/transfer-to-user/',
        'POST /wallets/withdraw-to-master/',
        'POST /transactions/export/',
        'POST /custody/accounts',
        'POST /custody/accounts/{accountId}/addresses/{blockchain}',
        'POST /custody/transfer',
        'POST /custody/withdraw',
        'POST /custody/withdrawals/{withdrawalId}/cancel',
      ].sort(),
    );
  });

  it('is only on authenticated routes (records are kept per tenant)', () => {
    const publicOnes = Object.values(API_ROUTE_TABLES)
      .flat()
      .filter((r) => r.idempotent && r.auth === 'public');
    expect(publicOnes.map(name)).toEqual([]);
  });

  it('docs/requests.md lists exactly the idempotent endpoints, generated from the routes (npx tsx scripts/idempotency-table.ts)', () => {
    expect(publishedIdempotencyTable(readFileSync(IDEMPOTENCY_TABLE_FILE, 'utf8'))).toBe(renderIdempotencyTable());
  });
});
