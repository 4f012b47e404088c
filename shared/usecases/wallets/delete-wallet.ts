import { accountOf, checkDeletable } from '../../domain/wallets.js';
import { findWallet } from './find-wallet.js';
import type { WalletsPorts } from './ports.js';

/**
 * `DELETE /wallets/{wallet_id}/` (spec 4.5): only when every balance of the wallet, owned, pending and held, is
 * zero (else 409 `invalid_state` naming the currencies). A deleted wallet is 404 and takes no transfers.
 */
export async function deleteWallet(tenantId: string, reference: string, deps: Pick<WalletsPorts, 'wallets' | 'ledger'>): Promise<void> {
  const wallet = await findWallet(tenantId, reference, deps);
  checkDeletable(wallet, await deps.ledger.balances(tenantId, accountOf(wallet)));
  await deps.wallets.remove(wallet);
}
