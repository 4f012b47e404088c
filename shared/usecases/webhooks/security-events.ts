import { EVENTS } from '../../domain/events.js';
import { errorField, logger } from '../../observability/logger.js';
import type { SecurityEventLog } from './ports.js';

/**
 * `security.login_attempt` (DESIGN section 7): a token request for a known client with a wrong secret. The
 * event is the whole change, so it exists exactly when it committed. Best effort: a failure to record it never
 * changes the answer (the caller still gets invalid_client).
 */
export async function recordFailedLogin(tenantId: string, clientId: string, now: Date, deps: { readonly securityEvents: SecurityEventLog }): Promise<void> {
  try {
    await deps.securityEvents.record({
      tenantId,
      type: EVENTS.securityLoginAttempt,
      payload: { client_id: clientId, success: false, reason: 'invalid_client_secret', attempted_at: now.toISOString() },
      at: now,
    });
  } catch (error) {
    logger.error('security.login_attempt not recorded', { error: errorField(error) });
  }
}
