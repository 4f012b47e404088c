import { authRoutes } from '../functions/auth/routes.js';
import { currencyRoutes } from '../functions/currencies/routes.js';
import { legacyRoutes } from '../functions/legacy/routes.js';
import { paymentRoutes } from '../functions/payments/routes.js';
import { refundRoutes } from '../functions/refunds/routes.js';
import { paymentLinkRoutes } from '../functions/payment-links/routes.js';
import { subscriptionRoutes } from '../functions/subscriptions/routes.js';
import { systemRoutes } from '../functions/system/routes.js';
import { balanceRoutes } from '../functions/user/balances-routes.js';
import { userRoutes } from '../functions/user/routes.js';
import { webhookRoutes } from '../functions/user/webhook-routes.js';
import { custodyAccountRoutes, custodyTransferRoutes } from '../functions/custody/routes.js';
import { custodySyncRoutes } from '../functions/custody-sync/routes.js';
import { custodyWithdrawalRoutes } from '../functions/custody-withdrawals/routes.js';
import { transactionRoutes } from '../functions/transactions/routes.js';
import { walletRoutes } from '../functions/wallets/routes.js';
import { withdrawalRoutes } from '../functions/withdrawals/routes.js';
import { buildOpenApi } from '../shared/http/openapi.js';
import type { AnyRoute } from '../shared/http/route.js';

/**
 * The OpenAPI document, generated from every group's route definitions (the same zod schemas that validate
 * requests). Only this generator sees every group; the system Lambda serves the committed result
 * (functions/system/openapi.json). A new group adds its routes here and runs `npm run build:openapi`.
 */
export const documentedRoutes = (): readonly AnyRoute<never>[] => [
  ...authRoutes,
  ...currencyRoutes,
  ...userRoutes,
  ...balanceRoutes,
  ...webhookRoutes,
  ...systemRoutes,
  ...legacyRoutes,
  ...paymentRoutes,
  // Refunds (DESIGN section 12), a Lambda of their own.
  ...refundRoutes,
  // Payment links (issue 30), a Lambda of their own.
  ...paymentLinkRoutes,
  // Plans and subscriptions (issue 30), a Lambda of their own.
  ...subscriptionRoutes,
  ...withdrawalRoutes,
  ...walletRoutes,
  ...transactionRoutes,
  // The custody group, served by three Lambdas (infra/definition.ts), in the order it is documented.
  ...custodyAccountRoutes,
  ...custodySyncRoutes,
  ...custodyTransferRoutes,
  ...custodyWithdrawalRoutes,
];

/** The servers are left out: the system Lambda adds its deployment's `PUBLIC_BASE_URL` when it serves the file. */
export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApi(documentedRoutes() as readonly AnyRoute[], { title: 'Crypto Payment Gateway', version: '1.0.0' }), null, 2)}\n`;
}
