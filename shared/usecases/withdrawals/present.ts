import * as z from 'zod';
import { amountText } from '../../domain/amounts.js';
import type { ChainTx } from '../../domain/chain-tx.js';
import { canCancel } from '../../domain/chain-tx.js';
import { findCurrency } from '../../domain/currencies.js';
import type { JsonNumber } from '../../domain/json-number.js';
import type { Decimal } from '../../domain/money.js';
import { jsonNumber } from '../../domain/money.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { expectedWithdrawalMs, hasFailed, isOpen, isPending, isProcessing } from '../../domain/withdrawals.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * Record 2.2 (create response, retrieval, status check, cancel), with `status_reason` (documented in
 * /openapi.json, computed by `statusReason`): why a `processing` withdrawal's transaction is held, why one
 * `failed`, and why one open longer than its network's expected time (`expectedWithdrawalMs`) still waits.
 */
export const WithdrawalRecord = lazySchema(() =>
  z
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
          [
            'Why a withdrawal is where it is, as far as the gateway knows; null when nothing is to be said.',
            '`failed`: the failure.',
            "`processing`: insufficient_gas, estimate_failed or fee_cap_reached while the hot wallet's transaction is held (nothing is lost).",
            "Once open longer than its network's expected time (the batcher's minute plus the currency's confirmations at the network's block time):",
            "`pending` says awaiting_dispatch, followed by the batcher's last refusal when it recorded one",
            '(awaiting_dispatch: network_not_served | no_token_contract | hot_wallet_unavailable | dispatch_failed);',
            '`processing` says awaiting_broadcast (the transaction is not signed yet), awaiting_confirmations (submitted, waiting for blocks),',
            'or awaiting_dispatch when its chain request is missing (the batcher asks again).',
          ].join(' '),
        ),
      custom_id: z.string().nullable(),
      callback_url: z.string().nullable(),
      account_id: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'Withdrawal' }),
);
export const WithdrawalListItem = lazySchema(() =>
  z
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
    .meta({ id: 'WithdrawalListItem' }),
);

/** What is known of a withdrawal's wait when it is read: its chain transaction (if one was asked for) and the time. */
export interface WithdrawalWait {
  readonly now: Date;
  /** The chain transaction of a processing withdrawal; null when none was found (or none was looked up). */
  readonly chainTx: Pick<ChainTx, 'status' | 'reason'> | null;
}

/** `status_reason` of record 2.2 (its zod description says what each value means). */
export function statusReason(w: WithdrawalState, wait: WithdrawalWait | null): string | null {
  if (hasFailed(w)) return w.failureReason;
  if (!isOpen(w)) return null;
  const held = isProcessing(w) ? (wait?.chainTx?.reason ?? null) : null;
  if (held) return held;
  const currency = findCurrency(w.currency);
  if (!wait || !currency || wait.now.getTime() - Date.parse(w.createdAt) <= expectedWithdrawalMs(currency)) return null;
  if (isPending(w)) return w.dispatchRefusal ? `awaiting_dispatch: ${w.dispatchRefusal}` : 'awaiting_dispatch';
  if (!wait.chainTx) return 'awaiting_dispatch';
  // Before signing (what may still be cancelled): nothing is on the wire yet.
  return canCancel(wait.chainTx) ? 'awaiting_broadcast' : 'awaiting_confirmations';
}

export function withdrawalRecord(w: WithdrawalState, wait: WithdrawalWait | null = null): LazyOutput<typeof WithdrawalRecord> {
  const shown = (value: Decimal) => amountText(value, w.currency, 'withdrawal');
  return {
    id: w.id,
    status: w.status,
    amount: shown(w.amount),
    currency: w.currency,
    address: w.address,
    blockchain: w.network,
    token: w.token,
    network_fee: shown(w.networkFee),
    transaction_fee: shown(w.platformFee),
    total_fee: shown(w.totalFee),
    total_deducted: shown(w.totalDeducted),
    transaction_hash: w.transactionHash,
    status_reason: statusReason(w, wait),
    custom_id: w.customId,
    callback_url: w.callbackUrl,
    account_id: w.accountId,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

/** The list item of 2.2: `withdrawal_id`, numeric `amount` and `fee`, `transaction_hash` only once submitted. */
/** The list item as sent: `amount` and `fee` are JSON numbers written from their exact decimal text. */
export type WithdrawalListEntry = Omit<LazyOutput<typeof WithdrawalListItem>, 'amount' | 'fee'> & { readonly amount: JsonNumber; readonly fee: JsonNumber };

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
