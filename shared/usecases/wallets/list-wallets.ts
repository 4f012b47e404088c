import * as z from 'zod';
import { accountOf } from '../../domain/wallets.js';
import { queryInteger } from '../schema.js';
import type { WalletsPorts } from './ports.js';
import { walletRecord } from './present.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** `GET /wallets/` (spec 4.5): by id, `limit` (default 50) and `offset`; `total` from the tenant's wallet count. */
export const ListWalletsQuery = lazySchema(() =>
  z.object({
    limit: queryInteger(1, 100).default(50),
    offset: queryInteger(0, 1_000_000).default(0),
  }),
);
export type ListWalletsQuery = LazyOutput<typeof ListWalletsQuery>;

export async function listWallets(tenantId: string, query: ListWalletsQuery, deps: Pick<WalletsPorts, 'wallets' | 'ledger'>) {
  const page = await deps.wallets.list(tenantId, query);
  const accounts = await Promise.all(page.wallets.map(async (w) => walletRecord(w, await deps.ledger.balances(tenantId, accountOf(w)))));
  return { accounts, total: page.total };
}
