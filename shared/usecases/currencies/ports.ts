import type { LedgerPort } from '../ledger/ports.js';
import type { RatesDeps } from '../rates/ports.js';

/** What the currency list needs: the tenant's balances (withdrawable currencies) and the rates (USD bounds). */
export interface ListCurrenciesDeps {
  readonly ledger: Pick<LedgerPort, 'balances'>;
  readonly rates: RatesDeps;
}
