import { paymentsRuntime } from '../../shared/runtime/payments.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import { expirePayments } from '../../shared/usecases/payments/expire.js';

const deps = paymentsRuntime();

/** EventBridge, every minute: waiting payments past their expiry_time become `expired`. */
export const handler = scheduledWorker('payment-expirer', ({ time }): Promise<{ expired: number }> => {
  // The schedule's time, when it is later than the clock (a delayed delivery must not expire early).
  const clock = deps.clock.now();
  const now = time !== null && time.getTime() >= clock.getTime() ? time : clock;
  return expirePayments({ ...deps, clock: { now: () => now } });
});
