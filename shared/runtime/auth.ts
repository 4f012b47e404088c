import { config, type Config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { dynamoOAuthApps, dynamoTokens } from '../store/credentials.js';
import { dynamoTenants } from '../store/tenants.js';
import { outboxSecurityEvents } from '../store/webhooks/common.js';
import type { AuthPorts } from '../usecases/auth/ports.js';
import { recordFailedLogin } from '../usecases/webhooks/security-events.js';

/** The auth group: OAuth applications, client credentials and tokens in DynamoDB; failed logins as security events. */
export function authRuntime(cfg: Config = config()): AuthPorts {
  return {
    apps: dynamoOAuthApps,
    tokens: dynamoTokens,
    tenants: dynamoTenants,
    securityEvents: { failedLogin: (tenantId, clientId, now) => recordFailedLogin(tenantId, clientId, now, { securityEvents: outboxSecurityEvents }) },
    settings: { accessTokenTtlSeconds: cfg.ACCESS_TOKEN_TTL_SECONDS },
    clock: systemClock,
  };
}
