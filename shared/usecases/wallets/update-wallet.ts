import * as z from 'zod';
import { accountOf, updateWallet as changeSettings } from '../../domain/wallets.js';
import { findWallet } from './find-wallet.js';
import type { WalletsPorts } from './ports.js';
import type { WalletRecord } from './present.js';
import { walletRecord } from './present.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** `PATCH /wallets/{wallet_id}/` (spec 4.5): the wallet's settings, `name` and `external_id` (null clears it). */
export const UpdateWalletBody = lazySchema(() =>
  z
    .object({
      name: z.string().max(100).optional(),
      external_id: z.string().max(100).nullable().optional(),
    })
    .meta({ id: 'UpdateWallet' }),
);
export type UpdateWalletBody = LazyOutput<typeof UpdateWalletBody>;

export async function updateWallet(
  tenantId: string,
  reference: string,
  body: UpdateWalletBody,
  deps: Pick<WalletsPorts, 'wallets' | 'ledger' | 'clock'>,
): Promise<WalletRecord> {
  const wallet = await findWallet(tenantId, reference, deps);
  const now = deps.clock.now();
  const next = changeSettings(
    wallet,
    { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.external_id !== undefined ? { externalId: body.external_id } : {}) },
    now,
  );
  const stored = await deps.wallets.save(wallet, next, now);
  return walletRecord(stored, await deps.ledger.balances(tenantId, accountOf(stored)));
}
