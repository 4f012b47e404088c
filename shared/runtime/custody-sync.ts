import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { dynamoCustodyAccounts, dynamoCustodyAddresses, dynamoCustodyDeposits } from '../store/custody.js';
import type { CustodyPorts } from '../usecases/custody/ports.js';
import { custodyChains } from './custody-chains.js';

/** What `POST /custody/accounts/:accountId/sync` (shared/usecases/custody/sync.ts) reads and writes. */
export type CustodySyncPorts = Pick<CustodyPorts, 'accounts' | 'addresses' | 'deposits' | 'chains' | 'clock'>;

/**
 * The custody-sync Lambda's wiring (functions/custody-sync): the accounts, their addresses and deposits, and the
 * chains the built-in provider reads (EVM JSON-RPC, TronGrid, Solana JSON-RPC: shared/runtime/custody-chains.ts).
 */
export function custodySyncRuntime(cfg: Config = config()): CustodySyncPorts {
  return {
    accounts: dynamoCustodyAccounts,
    addresses: dynamoCustodyAddresses,
    deposits: dynamoCustodyDeposits,
    chains: custodyChains(cfg),
    clock: systemClock,
  };
}
