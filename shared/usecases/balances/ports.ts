import type { LedgerPort } from '../ledger/ports.js';

/** A tenant's wallet (sub-account) as the balances show it. */
export interface WalletInfo {
  readonly walletId: string;
  readonly name: string;
}

export interface BalancesPorts {
  readonly ledger: LedgerPort;
  /** The tenant's wallets (sub-accounts); default none. */
  readonly wallets?: (tenantId: string) => Promise<readonly WalletInfo[]>;
}
