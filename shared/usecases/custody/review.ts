import * as z from 'zod';
import { NotFoundError } from '../../domain/errors.js';
import type { CustodyReviewPolicy } from '../../domain/custody.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { transition } from '../../domain/withdrawals.js';
import { decimal } from '../schema.js';
import { parseInput } from '../ledger/input.js';
import type { CustodyWithdrawalPorts } from './ports.js';

/**
 * The operator's side of custody withdrawals (`npm run gateway -- custody ...`): each tenant's review policy, the
 * withdrawals waiting for review (one queue across tenants), and the decision on one. An approved withdrawal
 * stays `pending` and the batcher dispatches it; a rejected one ends `rejected` with its hold returned, in one
 * transaction.
 */

const MAX_HELD = 1000;

export const ReviewPolicyInput = z.object({
  tenant_id: z.string().trim().min(1),
  threshold: decimal({ positive: true }).nullable(),
  allowlist: z.array(z.string().trim().min(1).max(255)).max(1000).nullable(),
});

export async function setReviewPolicy(raw: z.input<typeof ReviewPolicyInput>, deps: Pick<CustodyWithdrawalPorts, 'policies'>): Promise<CustodyReviewPolicy> {
  const input = parseInput(ReviewPolicyInput, raw);
  const policy = { threshold: input.threshold, allowlist: input.allowlist };
  await deps.policies.put(input.tenant_id, policy);
  return policy;
}

/** The withdrawals waiting for the operator, oldest first. */
export const heldForReview = (deps: Pick<CustodyWithdrawalPorts, 'withdrawals'>): Promise<WithdrawalState[]> => deps.withdrawals.queued('review', MAX_HELD);

export type ReviewDecision =
  { readonly decision: 'approve'; readonly by: string } | { readonly decision: 'reject'; readonly by: string; readonly note: string };

export async function decideReview(
  withdrawalId: string,
  decision: ReviewDecision,
  deps: Pick<CustodyWithdrawalPorts, 'withdrawals' | 'clock'>,
): Promise<WithdrawalState> {
  const held = (await heldForReview(deps)).find((w) => w.id === withdrawalId);
  if (!held) throw new NotFoundError(`No withdrawal ${withdrawalId} is waiting for review.`, { withdrawal_id: withdrawalId });
  const now = deps.clock.now();
  const fact =
    decision.decision === 'approve'
      ? ({ kind: 'review_approved', by: decision.by } as const)
      : ({ kind: 'review_rejected', by: decision.by, note: decision.note } as const);
  return deps.withdrawals.save(held, transition(held, fact, now), now);
}
