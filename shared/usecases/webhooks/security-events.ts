import { outboxEvent, outboxPutItem } from '../../store/outbox.js';
import { transactWrite } from '../../store/transact.js';

/**
 * `security.login_attempt` (DESIGN section 7): a token request for a known client with a wrong secret. The
 * outbox item is the whole change, so the event exists exactly when it committed. Best effort: a failure to
 * record it never changes the answer (the caller still gets invalid_client).
 */
export async function recordFailedLogin(tenantId: string, clientId: string, now: Date): Promise<void> {
  try {
    await transactWrite([
      outboxPutItem(outboxEvent(tenantId, 'security.login_attempt', { client_id: clientId, success: false, reason: 'invalid_client_secret', attempted_at: now.toISOString() }, { now })),
    ]);
  } catch (error) {
    console.error(JSON.stringify({ level: 'error', msg: 'security.login_attempt not recorded', error: (error as Error).message }));
  }
}
