import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { dynamoPlans } from '../store/plans.js';
import { dynamoSubscriptions, dynamoTenantClocks } from '../store/subscriptions.js';
import { dynamoTenants } from '../store/tenants.js';
import type { SubscriptionsDeps } from '../usecases/subscriptions/ports.js';
import { mandatesRuntime } from './mandates.js';
import { paymentsRuntime } from './payments.js';

/**
 * The plan and subscription use cases wired from configuration (issue 30): the DynamoDB repositories, the payment use
 * case's own deps (each period's payment is an ordinary one), and the tenants' test clocks, honoured outside
 * production only; with `SUBSCRIPTION_COLLECTOR_CONTRACT`, pull subscriptions' mandates (./mandates.ts; their
 * collection, for the workers: ./collector.ts `pullSubscriptionsRuntime`).
 */
export function subscriptionsRuntime(cfg: Config = config()): SubscriptionsDeps {
  const mandates = mandatesRuntime(cfg);
  return {
    plans: dynamoPlans,
    subscriptions: dynamoSubscriptions,
    payments: paymentsRuntime(cfg),
    tenants: dynamoTenants,
    clocks: dynamoTenantClocks(!cfg.isProduction),
    settings: { publicBaseUrl: cfg.PUBLIC_BASE_URL ?? null },
    ...(mandates ? { mandates } : {}),
  };
}
