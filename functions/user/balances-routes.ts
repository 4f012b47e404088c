import { z } from 'zod';
import { ADMIN, READ, READ_WRITE } from '../../shared/domain/scopes.js';
import { ok, principalOf, route } from '../../shared/http/route.js';
import { dynamoLedger } from '../../shared/store/ledger.js';
import { BalanceHistoryQuery, getBalanceHistory } from '../../shared/usecases/balances/get-balance-history.js';
import { getBalances } from '../../shared/usecases/balances/get-balances.js';
import { getPlatformFees } from '../../shared/usecases/balances/get-platform-fees.js';

/**
 * Balance routes of the `user` group (spec 2.7, 4.6), spread into functions/user/routes.ts by the lead:
 * `export const userRoutes = [...existing, ...balanceRoutes]`.
 */

const BalancesView = z.object({
  account: z.record(z.string(), z.object({ amount: z.string(), pending_amount: z.string() })),
  sub_accounts: z.record(
    z.string(),
    z.object({
      total_amount: z.string(),
      total_pending: z.string(),
      accounts: z.array(z.object({ account_name: z.string(), account_id: z.string(), amount: z.string(), pending_amount: z.string(), available_balance: z.string() })),
    }),
  ),
  statistics: z.object({ currencies_count: z.number().int(), subaccounts_count: z.number().int() }),
});

const HistoryRecord = z.object({
  id: z.string().describe('Journal entry id'),
  type: z.string(),
  currency: z.string(),
  amount: z.string().describe('Signed change of the available amount'),
  locked_amount: z.string().describe('Signed change of the amount held for pending withdrawals'),
  pending_amount: z.string().describe('Signed change of the amount still confirming'),
  reference: z.object({ type: z.string(), id: z.string() }).nullable(),
  description: z.string().nullable(),
  created_at: z.string(),
});

const PlatformFees = z.object({
  fees: z.record(z.string(), z.object({ platform_fees: z.string(), network_fees: z.string() })),
  currencies_count: z.number().int(),
});

export const balanceRoutes = [
  route({
    method: 'GET',
    path: '/user/balances/',
    auth: 'bearer',
    scopes: READ_WRITE,
    doc: {
      summary: 'Balances of the master account and the sub-accounts',
      description: '`amount` is what the account holds (available plus held for pending withdrawals); `pending_amount` is still confirming.',
      tags: ['Balances'],
      responses: { 200: { description: 'Balances', schema: BalancesView } },
    },
    handle: async (req) => ok(await getBalances({ tenantId: principalOf(req).tenant.id }, { ledger: dynamoLedger })),
  }),
  route({
    method: 'GET',
    path: '/user/balances/history/',
    auth: 'bearer',
    scopes: READ,
    query: BalanceHistoryQuery,
    doc: {
      summary: 'Balance history of the master account',
      description: 'Journal records, newest first; filter by `currency` and `type`; `limit` default 50 (max 100), `offset`.',
      tags: ['Balances'],
      responses: {
        200: { description: 'History', schema: z.object({ count: z.number().int(), limit: z.number().int(), offset: z.number().int(), results: z.array(HistoryRecord) }) },
      },
    },
    handle: async (req) => ok(await getBalanceHistory({ tenantId: principalOf(req).tenant.id, query: req.query }, { ledger: dynamoLedger })),
  }),
  route({
    method: 'GET',
    path: '/user/fees/',
    auth: 'bearer',
    scopes: ADMIN,
    doc: {
      summary: 'Platform fee balances (admin)',
      description: 'Per currency: platform fees collected and network fees (charged minus paid), summed over the sharded rows.',
      tags: ['Balances'],
      responses: { 200: { description: 'Platform fees', schema: PlatformFees } },
    },
    handle: async () => ok(await getPlatformFees({ ledger: dynamoLedger })),
  }),
];
