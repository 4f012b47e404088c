import type { AnyRoute } from '../../shared/http/route.js';
import { authRoutes } from '../auth/routes.js';
import { currencyRoutes } from '../currencies/routes.js';
import { balanceRoutes } from '../user/balances-routes.js';
import { legacyRoutes } from '../legacy/handler.js';
import { paymentRoutes } from '../payments/routes.js';
import { userRoutes } from '../user/routes.js';
import { webhookRoutes } from '../user/webhook-routes.js';
import { withdrawalRoutes } from '../withdrawals/routes.js';
import { systemRoutes } from './routes.js';

/** Every documented route of every group, for the OpenAPI document. A new group adds itself here. */
export const allRoutes = (): readonly AnyRoute[] => [...authRoutes, ...currencyRoutes, ...userRoutes, ...balanceRoutes, ...webhookRoutes, ...systemRoutes, ...legacyRoutes, ...paymentRoutes, ...withdrawalRoutes];
