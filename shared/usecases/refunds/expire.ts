import type { Clock } from '../../domain/clock.js';
import { ConflictError } from '../../domain/errors.js';
import { claimExpired, transition } from '../../domain/refunds.js';
import type { RefundRepository } from './ports.js';

/**
 * Claim links unused by their deadline (run by the payment-expirer's schedule): each refund still awaiting its address
 * past `claim_expires_at` becomes `expired`, its hold released and its amount refundable again, announced
 * (`refund.failed`, `refund_status_update`). Reads the gsi3 queue of awaiting refunds by deadline, so a run touches
 * only the due ones. A refund that moved meanwhile (the customer entered the address, the merchant cancelled) is left alone.
 */
export async function expireRefundClaims(deps: { readonly refunds: RefundRepository; readonly clock: Clock }, batch = 100): Promise<{ expired: number }> {
  const now = deps.clock.now();
  let expired = 0;
  for (;;) {
    const due = (await deps.refunds.dueClaims(now.toISOString(), batch)).filter((r) => claimExpired(r, now));
    let moved = 0;
    for (const r of due) {
      try {
        await deps.refunds.save(r, transition(r, { kind: 'expire' }, now), now);
        moved++;
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    expired += moved;
    if (due.length < batch || moved === 0) return { expired };
  }
}
