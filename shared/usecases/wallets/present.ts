import * as z from 'zod';
import type { BalanceRow } from '../../domain/ledger.js';
import type { WalletState, WalletTransferState } from '../../domain/wallets.js';
import { TRANSFER_STATUSES, TRANSFER_TYPES } from '../../domain/wallets.js';
import { showAmount } from '../balances/format.js';
import { BalanceEntry, balanceEntry } from '../balances/get-balances.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** A wallet's balance in one currency (spec 2.6), decimal strings: owned, confirming, usable now, held. */
export const WalletBalance = lazySchema(() => z.object({ currency: z.string() }).extend(BalanceEntry().shape).meta({ id: 'WalletBalance' }));

/** A wallet (spec 2.6). */
export const WalletRecord = lazySchema(() =>
  z
    .object({
      id: z.number().int(),
      wallet_id: z.string(),
      name: z.string(),
      external_id: z.string().nullable(),
      created: z.string(),
      updated: z.string(),
      balances: z.array(WalletBalance()),
    })
    .meta({ id: 'Wallet' }),
);
export type WalletRecord = LazyOutput<typeof WalletRecord>;

export function walletBalances(rows: readonly BalanceRow[]): LazyOutput<typeof WalletBalance>[] {
  return rows.map((row) => ({ currency: row.currency, ...balanceEntry(row.balance, row.currency) }));
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
export const WalletTransferRecord = lazySchema(() =>
  z
    .object({
      transfer_id: z.string(),
      transfer_type: z.enum(TRANSFER_TYPES),
      status: z.enum(TRANSFER_STATUSES),
      wallet_id: z.string(),
      currency: z.string(),
      amount: z.string(),
      failure_reason: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'WalletTransfer' }),
);

export const walletTransferRecord = (t: WalletTransferState): LazyOutput<typeof WalletTransferRecord> => ({
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
