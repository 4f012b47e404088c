import { z } from 'zod';
import type { BalanceRow } from '../../domain/ledger.js';
import { totalOf } from '../../domain/ledger.js';
import type { WalletState, WalletTransferState } from '../../domain/wallets.js';
import { showAmount } from '../balances/format.js';

/** A wallet's balance in one currency (spec 2.6), decimal strings: owned, confirming, usable now, held. */
export const WalletBalance = z
  .object({
    currency: z.string(),
    amount: z.string().describe('Owned: available plus locked'),
    pending_amount: z.string().describe('Incoming, not yet confirmed'),
    available_balance: z.string().describe('Usable now'),
    locked_amount: z.string().describe('Held for transfers and withdrawals in progress'),
  })
  .meta({ id: 'WalletBalance' });

/** A wallet (spec 2.6). */
export const WalletRecord = z
  .object({
    id: z.number().int(),
    wallet_id: z.string(),
    name: z.string(),
    external_id: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
    balances: z.array(WalletBalance),
  })
  .meta({ id: 'Wallet' });
export type WalletRecord = z.output<typeof WalletRecord>;

export function walletBalances(rows: readonly BalanceRow[]): z.output<typeof WalletBalance>[] {
  return rows.map((row) => ({
    currency: row.currency,
    amount: showAmount(totalOf(row.balance), row.currency),
    pending_amount: showAmount(row.balance.pending, row.currency),
    available_balance: showAmount(row.balance.amount, row.currency),
    locked_amount: showAmount(row.balance.locked, row.currency),
  }));
}

export function walletRecord(w: WalletState, rows: readonly BalanceRow[]): WalletRecord {
  return {
    id: w.id,
    wallet_id: w.walletId,
    name: w.name,
    external_id: w.externalId,
    created: w.createdAt,
    updated: w.updatedAt,
    balances: walletBalances(rows),
  };
}

/** A transfer as its history shows it. */
export const WalletTransferRecord = z
  .object({
    transfer_id: z.string(),
    transfer_type: z.enum(['to_sub', 'to_master']),
    status: z.enum(['accepted', 'completed', 'failed']),
    wallet_id: z.string(),
    currency: z.string(),
    amount: z.string(),
    failure_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'WalletTransfer' });

export const walletTransferRecord = (t: WalletTransferState): z.output<typeof WalletTransferRecord> => ({
  transfer_id: t.id,
  transfer_type: t.type,
  status: t.status,
  wallet_id: t.walletId,
  currency: t.currency,
  amount: showAmount(t.amount, t.currency),
  failure_reason: t.failureReason,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});
