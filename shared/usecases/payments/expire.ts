import { ConflictError } from '../../domain/errors.js';
import { awaitsDeposit, transition } from '../../domain/payments.js';
import type { PaymentsDeps } from './ports.js';

/**
 * payment-expirer: waiting payments whose expiry_time has passed move to `expired` (with `payment.expired` and
 * `payment_status_update`). Reads the gsi3 queue of waiting payments by expiry time, so each run touches only
 * the due ones. Scheduled every minute: a payment expires within a minute of its expiry_time. A payment that
 * changed meanwhile (a deposit arrived) is left alone.
 */
export async function expirePayments(deps: Pick<PaymentsDeps, 'payments' | 'clock'>, batch = 100): Promise<{ expired: number }> {
  const now = deps.clock.now();
  let expired = 0;
  for (;;) {
    const due = (await deps.payments.due(now.toISOString(), batch)).filter((p) => awaitsDeposit(p) && Date.parse(p.expiryTime) <= now.getTime());
    let moved = 0;
    for (const p of due) {
      try {
        await deps.payments.save(p, transition(p, { kind: 'expire' }, now), now);
        moved++;
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    expired += moved;
    if (due.length < batch || moved === 0) return { expired };
  }
}
