import { authRoutes } from '../../functions/auth/routes.js';
import { currencyRoutes } from '../../functions/currencies/routes.js';
import { legacyRoutes } from '../../functions/legacy/routes.js';
import { paymentRoutes } from '../../functions/payments/routes.js';
import { refundRoutes } from '../../functions/refunds/routes.js';
import { paymentLinkRoutes } from '../../functions/payment-links/routes.js';
import { subscriptionRoutes } from '../../functions/subscriptions/routes.js';
import { docsRoutes } from '../../functions/system/docs.js';
import { systemRoutes } from '../../functions/system/routes.js';
import { balanceRoutes } from '../../functions/user/balances-routes.js';
import { userRoutes } from '../../functions/user/routes.js';
import { webhookRoutes } from '../../functions/user/webhook-routes.js';
import { custodyAccountRoutes, custodyTransferRoutes } from '../../functions/custody/routes.js';
import { custodySyncRoutes } from '../../functions/custody-sync/routes.js';
import { custodyWithdrawalRoutes } from '../../functions/custody-withdrawals/routes.js';
import { transactionRoutes } from '../../functions/transactions/routes.js';
import { walletRoutes } from '../../functions/wallets/routes.js';
import { withdrawalRoutes } from '../../functions/withdrawals/routes.js';
import type { AnyRoute } from '../../shared/http/route.js';

/**
 * Each API Lambda's route table, as its `functions/<name>/handler.ts` hands it to `createApi`, keyed by the
 * function's name in infra/definition.ts (test/unit/http/router.test.ts checks the keys against it).
 */
export const API_ROUTE_TABLES: Readonly<Record<string, readonly AnyRoute<never>[]>> = {
  auth: authRoutes,
  user: [...userRoutes, ...balanceRoutes, ...webhookRoutes],
  system: [...systemRoutes, ...docsRoutes],
  currencies: currencyRoutes,
  legacy: legacyRoutes,
  payments: paymentRoutes,
  refunds: refundRoutes,
  'payment-links': paymentLinkRoutes,
  subscriptions: subscriptionRoutes,
  withdrawals: withdrawalRoutes,
  wallets: walletRoutes,
  transactions: transactionRoutes,
  custody: [...custodyAccountRoutes, ...custodyTransferRoutes],
  'custody-sync': custodySyncRoutes,
  'custody-withdrawals': custodyWithdrawalRoutes,
  'not-found': [],
};

/** A concrete request path for a template: a uuid for each `{name}`, two segments for a greedy `{name+}`. */
export function samplePath(template: string, value = '5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10'): string {
  return template.replace(/\{\w+\+\}/g, 'any/where').replace(/\{\w+\}/g, value);
}
