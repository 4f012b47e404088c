import { config } from '../../shared/config/config.js';
import { pullSubscriptionsRuntime } from '../../shared/runtime/collector.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import { advanceDue } from '../../shared/usecases/subscriptions/advance.js';

const deps = pullSubscriptionsRuntime();
/** Checkout links of the periods it opens: on the deployment's public base URL (relative without one). */
const origin = config().PUBLIC_BASE_URL ?? '';

/**
 * EventBridge, every minute (issue 30): the subscriptions whose next action is due, each taken as far as its clock
 * says (shared/usecases/subscriptions/advance.ts), pull ones through the collector contract. One empty index query
 * when nothing is due.
 */
export const handler = scheduledWorker('subscription-advancer', async ({ time }, log): Promise<{ due: number; steps: number; failed: number }> => {
  const clock = deps.payments.clock.now();
  const now = time !== null && time.getTime() >= clock.getTime() ? time : clock;
  return advanceDue(now, deps, origin, log);
});
