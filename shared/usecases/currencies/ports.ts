import type { ServedNetworks } from '../../domain/currencies.js';
import type { LedgerPort } from '../ledger/ports.js';
import type { RatesDeps } from '../rates/ports.js';

/**
 * What the currency list needs: the tenant's balances (withdrawable currencies), the rates (USD bounds) and what
 * this deployment serves (only those currencies are listed).
 */
export interface ListCurrenciesDeps {
  readonly ledger: Pick<LedgerPort, 'balances'>;
  readonly rates: RatesDeps;
  readonly served: ServedNetworks;
}
