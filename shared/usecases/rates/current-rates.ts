import { isActive, findCurrency } from '../../domain/currencies.js';
import type { StoredRates, UsdRates } from '../../domain/rates.js';
import type { RatesDeps } from './ports.js';
import { refreshRates } from './refresh-rates.js';

/**
 * The current snapshot, restricted to currencies active now. Before the first refresh (a fresh stack) the
 * snapshot is taken on the spot, so the first request does not fail.
 */
export async function currentRates(deps: RatesDeps, now: Date): Promise<StoredRates> {
  const stored = (await deps.store.current()) ?? (await refreshRates({ now }, deps));
  const rates = Object.fromEntries(
    Object.entries(stored.rates).filter(([code]) => {
      const currency = findCurrency(code);
      return currency !== undefined && isActive(currency, deps.disabled);
    }),
  );
  return { ...stored, rates };
}

/** USD per unit of every active currency and of EUR and GBP (USD itself is implied). */
export function usdRatesOf(stored: StoredRates): UsdRates {
  return { ...stored.fiat, ...Object.fromEntries(Object.entries(stored.rates).map(([code, s]) => [code, s.usd])) };
}
