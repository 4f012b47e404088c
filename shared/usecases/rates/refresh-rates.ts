import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { PriceAsset } from '../../domain/currencies.js';
import { valuedCurrencies } from '../../domain/currencies.js';
import type { RateStats, StoredRates } from '../../domain/rates.js';
import { hourOf, mergeCandle, stats24h, windowStartHour } from '../../domain/rates.js';
import { parseInput } from '../ledger/input.js';
import type { RatesDeps } from './ports.js';

/**
 * The rates-refresher's work (every 60 s): ask the market-data source for the prices of every currency the
 * gateway values (`valuedCurrencies`: the whole catalogue, on every network), fold them into the current hour's
 * candles, compute the 24 h statistics from the window's candles, and store the snapshot. Disabled currencies are
 * left out. A source failure leaves the previous
 * snapshot in place (its `last_updated` shows its age) and is rethrown for the worker's error metric.
 */
export const RefreshRatesInput = lazySchema(() => z.object({ now: z.date() }));
export type RefreshRatesInput = z.input<ReturnType<typeof RefreshRatesInput>>;

export const REFRESH_INTERVAL_SECONDS = 60;

export async function refreshRates(raw: RefreshRatesInput, deps: RatesDeps): Promise<StoredRates> {
  const { now } = parseInput(RefreshRatesInput(), raw);
  // Every currency the gateway may hold, on every network (custody's USDT on Solana included): the read keeps the same set.
  const currencies = valuedCurrencies(deps.disabled);
  const assets = [...new Set(currencies.map((c) => c.asset))] as PriceAsset[];
  const snapshot = await deps.provider.fetchSnapshot(assets, { now });

  const hour = hourOf(now);
  const [existing] = await deps.store.candles(hour, hour);
  const candles = { ...(existing?.candles ?? {}) };
  for (const currency of currencies) {
    const quote = snapshot.assets[currency.asset];
    if (quote) candles[currency.code] = mergeCandle(candles[currency.code], quote.usd);
  }
  for (const code of ['EUR', 'GBP'] as const) {
    const usd = snapshot.fiat[code];
    if (usd) candles[code] = mergeCandle(candles[code], usd);
  }
  await deps.store.putCandles({ hour, candles }, Math.floor(now.getTime() / 1000));

  const window = await deps.store.candles(windowStartHour(now), hour);
  const withCurrent = window.some((w) => w.hour === hour) ? window.map((w) => (w.hour === hour ? { hour, candles } : w)) : [...window, { hour, candles }];
  const rates: Record<string, RateStats> = {};
  for (const currency of currencies) {
    const quote = snapshot.assets[currency.asset];
    if (!quote) continue;
    rates[currency.code] = stats24h(currency.code, quote.usd, withCurrent, { volume24h: quote.volume24h, marketCap: quote.marketCap });
  }
  const fiat: Record<string, string> = {};
  for (const code of ['EUR', 'GBP'] as const) {
    const usd = snapshot.fiat[code];
    if (usd) fiat[code] = usd;
  }
  const stored: StoredRates = {
    at: now.toISOString(),
    nextUpdate: new Date(now.getTime() + REFRESH_INTERVAL_SECONDS * 1000).toISOString(),
    source: snapshot.source,
    rates,
    fiat,
  };
  await deps.store.putCurrent(stored);
  return stored;
}
