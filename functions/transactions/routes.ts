import { READ } from '../../shared/domain/scopes.js';
import type { AnyRoute } from '../../shared/http/route.js';
import { ok, principalOf, routesOf } from '../../shared/http/route.js';
import type { ExportsPorts } from '../../shared/usecases/transactions/export-ports.js';
import { ListTransactionsQuery, listTransactions, TransactionList } from '../../shared/usecases/transactions/list-transactions.js';
import type { TransactionsPorts } from '../../shared/usecases/transactions/ports.js';
import { exportRoutes } from './export-routes.js';
import { TransactionStats, TransactionStatsQuery, transactionStats } from '../../shared/usecases/transactions/transaction-stats.js';

const tags = ['Transactions'];
const route = routesOf<TransactionsPorts>();

/** The transactions Lambda's routes: the history and its statistics, and the exports. */
export const transactionRoutes: readonly AnyRoute<TransactionsPorts & ExportsPorts>[] = [
  route({
    method: 'GET',
    path: '/transactions/transactions/',
    auth: 'bearer',
    scopes: READ,
    query: ListTransactionsQuery,
    doc: {
      summary: 'Every money movement of the tenant',
      description:
        'Payments, withdrawals, wallet transfers, operator adjustments, custody movements and refunds in one list, newest first. Filters: type (payment, withdrawal, transfer, adjustment, custody, refund), status (of that type), currency, wallet_id (a wallet uuid), date_from and date_to (ISO 8601 on created_at, inclusive; a date alone covers its UTC day). Pages with limit (default 50, at most 200) and offset, or with the next_cursor of the previous page as cursor. A bad filter is 400 invalid_request naming the field.',
      tags,
      responses: {
        200: { description: '{transactions[], total, limit, offset, next_cursor}', schema: TransactionList },
        400: { description: 'invalid_request' },
      },
    },
    handle: async (req, deps) => ok(await listTransactions(principalOf(req).tenant.id, req.query, deps)),
  }),
  route({
    method: 'GET',
    path: '/transactions/stats/',
    auth: 'bearer',
    scopes: READ,
    query: TransactionStatsQuery,
    doc: {
      summary: 'Statistics of a period',
      description:
        'Movements created from date_from to date_to (whole UTC days, inclusive; default the last 30 days): counts per type and current status, volume and fees per currency of the completed ones, USD volume. From counters kept in the movements’ own transactions.',
      tags,
      responses: { 200: { description: 'The statistics', schema: TransactionStats }, 400: { description: 'invalid_request' } },
    },
    handle: async (req, deps) => ok(await transactionStats(principalOf(req).tenant.id, req.query, deps)),
  }),
  ...exportRoutes,
];
