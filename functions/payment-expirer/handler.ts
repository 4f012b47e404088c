import { paymentsRuntime } from '../../shared/runtime/payments.js';
import { refundClaimsRuntime } from '../../shared/runtime/refunds.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import { expirePayments } from '../../shared/usecases/payments/expire.js';
import { expireRefundClaims } from '../../shared/usecases/refunds/expire.js';

const deps = paymentsRuntime();
const refunds = refundClaimsRuntime();

/**
 * EventBridge, every minute: waiting payments past their expiry_time become `expired`; refunds whose claim link went
 * unused past its deadline become `expired`, their holds released.
 */
export const handler = scheduledWorker('payment-expirer', async ({ time }): Promise<{ expired: number; refundClaimsExpired: number }> => {
  // The schedule's time, when it is later than the clock (a delayed delivery must not expire early).
  const clock = deps.clock.now();
  const now = time !== null && time.getTime() >= clock.getTime() ? time : clock;
  const { expired } = await expirePayments({ ...deps, clock: { now: () => now } });
  const claims = await expireRefundClaims({ ...refunds, clock: { now: () => now } });
  return { expired, refundClaimsExpired: claims.expired };
});
