import { valuedCurrencies } from '../../domain/currencies.js';
import type { StoredRates, UsdRates } from '../../domain/rates.js';
import type { RatesDeps } from './ports.js';
import { refreshRates } from './refresh-rates.js';

/**
 * The current snapshot, restricted to the currencies the gateway values now (`valuedCurrencies`, the set the
 * refresher prices: every catalogue currency not switched off, held by payments, balances or custody). Before the
 * first refresh (a fresh stack) the snapshot is taken on the spot, so the first request does not fail.
 */
export async function currentRates(deps: RatesDeps, now: Date): Promise<StoredRates> {
  const stored = (await deps.store.current()) ?? (await refreshRates({ now }, deps));
  const valued = new Set<string>(valuedCurrencies(deps.disabled).map((c) => c.code));
  const rates = Object.fromEntries(Object.entries(stored.rates).filter(([code]) => valued.has(code)));
  return { ...stored, rates };
}

/** USD per unit of every active currency and of EUR and GBP (USD itself is implied). */
export function usdRatesOf(stored: StoredRates): UsdRates {
  return { ...stored.fiat, ...Object.fromEntries(Object.entries(stored.rates).map(([code, s]) => [code, s.usd])) };
}

/**
 * The rates ports with `current()` answering a snapshot already read (with the request's credential, in the same
 * round trip), so the request uses exactly what it read; null: none stored yet (taken on the spot, as above);
 * undefined: nothing was read, the ports as they are.
 */
export function withRatesRead(deps: RatesDeps, snapshot: StoredRates | null | undefined): RatesDeps {
  if (snapshot === undefined) return deps;
  return { ...deps, store: { ...deps.store, current: async () => snapshot } };
}
