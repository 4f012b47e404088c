import * as z from 'zod';
import { ADMIN, READ, READ_WRITE } from '../../shared/domain/scopes.js';
import { ok, principalOf, routesOf } from '../../shared/http/route.js';
import { BalanceHistoryQuery, getBalanceHistory } from '../../shared/usecases/balances/get-balance-history.js';
import { BalancesView, getBalances } from '../../shared/usecases/balances/get-balances.js';
import { getPlatformFees } from '../../shared/usecases/balances/get-platform-fees.js';
import type { BalancesPorts } from '../../shared/usecases/balances/ports.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import type { LazyOutput } from '../../shared/domain/lazy-schema.js';

/** Balance routes of the `user` group (spec 2.7, 4.6), served by functions/user/handler.ts beside the others. */

const route = routesOf<BalancesPorts>();

const HistoryRecord = lazySchema(() =>
  z.object({
    id: z.string().describe('Journal entry id'),
    type: z.string(),
    currency: z.string(),
    amount: z.string().describe('Signed change of the available amount'),
    locked_amount: z.string().describe('Signed change of the amount held for pending withdrawals'),
    pending_amount: z.string().describe('Signed change of the amount still confirming'),
    reference: z.object({ type: z.string(), id: z.string() }).nullable(),
    description: z.string().nullable(),
    created_at: z.string(),
  }),
);

const BalanceHistory = lazySchema(() =>
  z.object({ count: z.number().int(), limit: z.number().int(), offset: z.number().int(), results: z.array(HistoryRecord()) }),
);

const PlatformFees = lazySchema(() =>
  z.object({
    fees: z.record(z.string(), z.object({ platform_fees: z.string(), network_fees: z.string() })),
    currencies_count: z.number().int(),
  }),
);

export const balanceRoutes = [
  route({
    method: 'GET',
    path: '/user/balances/',
    auth: 'bearer',
    scopes: READ_WRITE,
    doc: {
      summary: 'Balances of the master account and the sub-accounts',
      description:
        'Every entry shows `amount` (owned: available plus locked), `pending_amount` (incoming, not yet confirmed), `available_balance` (usable now) and `locked_amount` (held for pending withdrawals and transfers).',
      tags: ['Balances'],
      responses: { 200: { description: 'Balances', schema: BalancesView } },
    },
    handle: async (req, deps) => {
      return ok(await getBalances({ tenantId: principalOf(req).tenant.id }, deps));
    },
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
        200: { description: 'History', schema: BalanceHistory },
      },
    },
    handle: async (req, deps) => {
      const history: LazyOutput<typeof BalanceHistory> = await getBalanceHistory({ tenantId: principalOf(req).tenant.id, query: req.query }, deps);
      return ok(history);
    },
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
    handle: async (_req, deps) => {
      const fees: LazyOutput<typeof PlatformFees> = await getPlatformFees(deps);
      return ok(fees);
    },
  }),
];
