import { z } from 'zod';
import type { JsonNumber } from '../../domain/json-number.js';
import { jsonNumber } from '../../domain/money.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { eight } from '../../domain/withdrawal-fees.js';

/**
 * Record 2.2 (create response, retrieval, status check, cancel), with `status_reason` (documented in
 * /openapi.json): why a `processing` withdrawal waits (`insufficient_gas`, `estimate_failed`, `fee_cap_reached`:
 * the hot wallet's transaction is held, nothing is lost) or why one `failed`; null otherwise.
 */
export const WithdrawalRecord = z
  .object({
    id: z.string().uuid(),
    status: z.string(),
    amount: z.string(),
    currency: z.string(),
    address: z.string(),
    blockchain: z.string(),
    token: z.string(),
    network_fee: z.string(),
    transaction_fee: z.string(),
    total_fee: z.string(),
    total_deducted: z.string(),
    transaction_hash: z.string().nullable(),
    status_reason: z
      .string()
      .nullable()
      .describe(
        'Why a processing withdrawal waits (insufficient_gas, estimate_failed, fee_cap_reached: held, nothing lost) or why one failed; null otherwise.',
      ),
    custom_id: z.string().nullable(),
    callback_url: z.string().nullable(),
    account_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Withdrawal' });
export const WithdrawalListItem = z
  .object({
    withdrawal_id: z.string(),
    status: z.string(),
    amount: z.number(),
    fee: z.number(),
    address: z.string(),
    blockchain: z.string(),
    token: z.string(),
    currency: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    custom_id: z.string().nullable(),
    transaction_hash: z.string().optional(),
  })
  .meta({ id: 'WithdrawalListItem' });

export function withdrawalRecord(w: WithdrawalState, processingReason: string | null = null): z.output<typeof WithdrawalRecord> {
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
/** The list item as sent: `amount` and `fee` are JSON numbers written from their exact decimal text. */
export type WithdrawalListEntry = Omit<z.output<typeof WithdrawalListItem>, 'amount' | 'fee'> & { readonly amount: JsonNumber; readonly fee: JsonNumber };

export function withdrawalListItem(w: WithdrawalState): WithdrawalListEntry {
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
