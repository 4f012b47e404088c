import { jsonNumber } from '../../domain/money.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { eight } from '../../domain/withdrawals.js';

/**
 * Record 2.2 (create response, retrieval, status check, cancel), with `status_reason` (documented in
 * /openapi.json): why a `processing` withdrawal waits (`insufficient_gas`, `estimate_failed`, `fee_cap_reached`:
 * the hot wallet's transaction is held, nothing is lost) or why one `failed`; null otherwise.
 */
export function withdrawalRecord(w: WithdrawalState, processingReason: string | null = null): Record<string, unknown> {
  return {
    id: w.id,
    status: w.status,
    amount: eight(w.amount),
    currency: w.currency,
    address: w.address,
    blockchain: w.network,
    token: w.token,
    network_fee: eight(w.networkFee),
    transaction_fee: eight(w.platformFee),
    total_fee: eight(w.totalFee),
    total_deducted: eight(w.totalDeducted),
    transaction_hash: w.transactionHash,
    status_reason: w.status === 'failed' ? w.failureReason : w.status === 'processing' ? processingReason : null,
    custom_id: w.customId,
    callback_url: w.callbackUrl,
    account_id: w.accountId,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

/** The list item of 2.2: `withdrawal_id`, numeric `amount` and `fee`, `transaction_hash` only once submitted. */
export function withdrawalListItem(w: WithdrawalState): Record<string, unknown> {
  return {
    withdrawal_id: w.id,
    status: w.status,
    amount: jsonNumber(w.amount),
    fee: jsonNumber(w.totalFee),
    address: w.address,
    blockchain: w.network,
    token: w.token,
    currency: w.currency,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    custom_id: w.customId,
    ...(w.transactionHash ? { transaction_hash: w.transactionHash } : {}),
  };
}
