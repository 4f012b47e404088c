import { config, type Config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { dynamoApiKeys } from '../store/credentials.js';
import { dynamoTenants } from '../store/tenants.js';
import type { TenantsPorts } from '../usecases/tenants/ports.js';

/** The tenant use cases (operator CLI): DynamoDB tenants and API keys, and the configured default limits. */
export function tenantsRuntime(cfg: Config = config()): TenantsPorts {
  return {
    tenants: dynamoTenants,
    apiKeys: dynamoApiKeys,
    clock: systemClock,
    defaults: { requestsPerHour: cfg.DEFAULT_REQUESTS_PER_HOUR, paymentCreationsPerHour: cfg.DEFAULT_PAYMENT_CREATIONS_PER_HOUR },
  };
}
