import { accountOf } from '../../domain/wallets.js';
import { findWallet } from './find-wallet.js';
import type { WalletsPorts } from './ports.js';
import type { WalletRecord } from './present.js';
import { walletRecord } from './present.js';

/** `GET /wallets/{id}/` (spec 4.5): the wallet with its balances, by integer id or uuid. */
export async function getWallet(tenantId: string, reference: string, deps: Pick<WalletsPorts, 'wallets' | 'ledger'>): Promise<WalletRecord> {
  const wallet = await findWallet(tenantId, reference, deps);
  return walletRecord(wallet, await deps.ledger.balances(tenantId, accountOf(wallet)));
}
