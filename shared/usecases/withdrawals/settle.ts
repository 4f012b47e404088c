import { DuplicateEntryError } from '../../domain/ledger.js';
import type { Decimal } from '../../domain/money.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { canSettle, transition } from '../../domain/withdrawals.js';
import type { WithdrawalsDeps } from './ports.js';

/** `networkFee`: what the chain took for it, where known exactly (a Bitcoin batch's share of its fee). */
export type WithdrawalResult = { readonly ok: true; readonly txHash: string; readonly networkFee?: Decimal } | { readonly ok: false; readonly reason: string };

/**
 * Completes (funds leave the ledger) or fails (funds return) a pending or processing withdrawal in one
 * transaction. Idempotent: a second result for a settled withdrawal changes nothing.
 */
export async function settleWithdrawal(
  w: WithdrawalState,
  result: WithdrawalResult,
  now: Date,
  deps: Pick<WithdrawalsDeps, 'withdrawals'>,
): Promise<WithdrawalState> {
  if (!canSettle(w)) return w;
  const change = transition(
    w,
    result.ok
      ? { kind: 'chain_confirmed', txHash: result.txHash, ...(result.networkFee === undefined ? {} : { networkFee: result.networkFee }) }
      : { kind: 'chain_failed', reason: result.reason },
    now,
  );
  try {
    return await deps.withdrawals.save(w, change, now);
  } catch (error) {
    if (error instanceof DuplicateEntryError) return change.state;
    throw error;
  }
}

/** `chain_tx.confirmed` / `chain_tx.failed` of purpose `withdrawal` (reference = withdrawal id). */
export async function onWithdrawalChainResult(
  tenantId: string,
  withdrawalId: string,
  result: WithdrawalResult,
  now: Date,
  deps: Pick<WithdrawalsDeps, 'withdrawals'>,
): Promise<WithdrawalState | null> {
  const w = await deps.withdrawals.get(tenantId, withdrawalId);
  if (!w) return null;
  return settleWithdrawal(w, result, now, deps);
}
