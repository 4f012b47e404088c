import type { ScheduledEvent } from 'aws-lambda';
import { paymentsRuntime } from '../../shared/runtime/payments.js';
import { expirePayments } from '../../shared/usecases/payments/expire.js';

const deps = paymentsRuntime();

/** EventBridge, every minute: waiting payments past their expiry_time become `expired`. */
export async function handler(event?: Partial<Pick<ScheduledEvent, 'time'>>): Promise<{ expired: number }> {
  // The schedule's time, when it is later than the clock (a delayed delivery must not expire early).
  const at = event?.time ? new Date(event.time) : new Date(Number.NaN);
  const now = Number.isNaN(at.getTime()) || at.getTime() < deps.clock.now().getTime() ? deps.clock.now() : at;
  return expirePayments({ ...deps, clock: { now: () => now } });
}
