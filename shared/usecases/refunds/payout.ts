import type { RefundFact } from '../../domain/refunds.js';
import { transition } from '../../domain/refunds.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import type { WithdrawalRepository } from '../withdrawals/ports.js';
import type { RefundRepository } from './ports.js';

/**
 * A refund follows the withdrawal that pays it (DESIGN section 12): every save of a refund's withdrawal (the
 * batcher's dispatch, alone or in a batch; its chain result; a tenant's cancel) writes the refund's matching change
 * in the SAME transaction, so the two never disagree. The withdrawal's entries move the money (the payout spends the
 * refund's hold, a failure or cancel releases it once); the refund's change only records it and, when the amount
 * comes back, lowers the payment's refunded total.
 */

/** The refund's fact for its withdrawal going from `previous` to `next`; null when the refund does not change. */
export function refundFactOf(previous: WithdrawalState, next: WithdrawalState): RefundFact | null {
  if (next.status === previous.status) return null;
  switch (next.status) {
    case 'processing':
      return { kind: 'dispatched', withdrawalId: next.id };
    case 'completed':
      return { kind: 'paid', txHash: next.transactionHash ?? '', networkFee: next.networkFee, amountSent: next.amount };
    case 'failed':
    case 'rejected':
      return { kind: 'failed', reason: next.failureReason ?? next.status };
    case 'cancelled':
      return { kind: 'cancel' };
    case 'pending':
      return null;
  }
}

/** The withdrawal repository with refunds following their withdrawals (every other withdrawal saved as before). */
export function followingRefunds(withdrawals: WithdrawalRepository, refunds: Pick<RefundRepository, 'get' | 'changeItems'>): WithdrawalRepository {
  return {
    ...withdrawals,
    async save(previous, change, now, alsoWrite) {
      const fact = previous.refundId ? refundFactOf(previous, change.state) : null;
      if (!previous.refundId || !fact) return withdrawals.save(previous, change, now, alsoWrite);
      const refund = await refunds.get(previous.tenantId, previous.refundId);
      if (!refund) throw new Error(`withdrawal ${previous.id} pays a refund ${previous.refundId} that does not exist`);
      const followed = refunds.changeItems(refund, transition(refund, fact, now), now);
      return withdrawals.save(previous, change, now, (stored) => [...followed.items, ...(alsoWrite?.(stored) ?? [])]);
    },
  };
}
