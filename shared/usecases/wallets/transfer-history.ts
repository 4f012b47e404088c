import * as z from 'zod';
import { TRANSFER_STATUSES, TRANSFER_TYPES } from '../../domain/wallets.js';
import { findWallet, WalletReference } from './find-wallet.js';
import { integerInput } from '../schema.js';
import type { WalletsPorts } from './ports.js';
import { WalletTransferRecord, walletTransferRecord } from './present.js';
import { lazySchema } from '../../domain/lazy-schema.js';

/** `POST /wallets/transfer-history/` (spec 4.5): the tenant's transfers, newest first, filtered, paged. */
export const TransferHistoryBody = lazySchema(() =>
  z
    .object({
      wallet_id: WalletReference().optional(),
      status: z.enum(TRANSFER_STATUSES).optional(),
      transfer_type: z.enum(TRANSFER_TYPES).optional(),
      currency: z.string().trim().min(1).max(20).optional(),
      limit: integerInput().pipe(z.number().int().min(1).max(100)).default(50),
      offset: integerInput().pipe(z.number().int().min(0)).default(0),
    })
    .meta({ id: 'WalletTransferHistoryRequest' }),
);
export type TransferHistoryBody = z.output<ReturnType<typeof TransferHistoryBody>>;

export const TransferHistory = lazySchema(() =>
  z.object({ transfers: z.array(WalletTransferRecord()), total: z.number().int() }).meta({ id: 'WalletTransferHistory' }),
);

export async function transferHistory(tenantId: string, body: TransferHistoryBody, deps: Pick<WalletsPorts, 'wallets' | 'transfers'>) {
  const walletId = body.wallet_id === undefined ? undefined : (await findWallet(tenantId, body.wallet_id, deps)).walletId;
  const all = await deps.transfers.list(tenantId, {
    ...(walletId !== undefined ? { walletId } : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
    ...(body.transfer_type !== undefined ? { type: body.transfer_type } : {}),
    ...(body.currency !== undefined ? { currency: body.currency.toUpperCase() } : {}),
  });
  return { transfers: all.slice(body.offset, body.offset + body.limit).map(walletTransferRecord), total: all.length };
}
