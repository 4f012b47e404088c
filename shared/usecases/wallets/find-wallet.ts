import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { NotFoundError } from '../../domain/errors.js';
import type { WalletState } from '../../domain/wallets.js';
import { walletRef } from '../../domain/wallets.js';
import { integerInput } from '../schema.js';
import type { WalletsPorts } from './ports.js';

/** A wallet named in a body: its integer `id` (number or text) or its uuid `wallet_id`. */
export const WalletReference = lazySchema(() => z.union([z.string().trim().min(1).max(64), integerInput().transform(String)]).meta({ type: 'string' }));

/**
 * The tenant's wallet a path or body names by its integer `id` or its uuid `wallet_id`. Anything else, a
 * deleted wallet and another tenant's are all 404 `not_found`.
 */
export async function findWallet(tenantId: string, reference: string | number, deps: Pick<WalletsPorts, 'wallets'>): Promise<WalletState> {
  const ref = walletRef(String(reference));
  const wallet = ref === null ? null : await deps.wallets.get(tenantId, ref);
  if (wallet === null) throw new NotFoundError(`No wallet ${String(reference)}.`, { wallet_id: String(reference) });
  return wallet;
}
