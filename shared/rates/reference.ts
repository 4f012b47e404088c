import type { PriceAsset } from '../domain/currencies.js';
import type { Decimal } from '../domain/money.js';
import { add, div, mul } from '../domain/money.js';
import type { FetchOptions, MarketQuote, MarketSnapshot, RateProvider } from './port.js';
import type { ReferencePrice } from './reference-prices.js';
import { REFERENCE_PRICES } from './reference-prices.js';

/**
 * Offline market data: the reference table, each price on a triangle wave of its own period and phase
 * (integer minutes, exact decimal arithmetic), so a given minute always yields the same prices.
 */

/** Phase of an asset (minutes): a small hash of its name, so assets do not move in lockstep. */
function phase(name: string, period: number): number {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 1_000_003;
  return h % period;
}

/** The reference price of `name` at `at`: usd * (1 + band * wave), wave in [-1, 1], 10 places. */
export function referencePrice(name: string, ref: ReferencePrice, at: Date): Decimal {
  const period = ref.periodMinutes;
  const minute = Math.floor(at.getTime() / 60_000);
  const x = (((minute + phase(name, period)) % period) + period) % period;
  const tri = x <= period / 2 ? x : period - x; // 0 .. period/2
  // wave = 4 * tri / period - 1, offset (fraction of usd) = band / 10000 * wave
  const offset = div(String(ref.bandBps * (4 * tri - period)), String(10_000 * period), 12, 'half-even');
  return div(mul(ref.usd, add('1', offset)), '1', 10, 'half-even');
}

export class ReferenceRateProvider implements RateProvider {
  readonly name = 'reference';

  constructor(private readonly table: typeof REFERENCE_PRICES = REFERENCE_PRICES) {}

  async fetchSnapshot(assets: readonly PriceAsset[], options: FetchOptions = {}): Promise<MarketSnapshot> {
    const at = options.now ?? new Date();
    const quotes: Partial<Record<PriceAsset, MarketQuote>> = {};
    for (const asset of assets) {
      const ref = this.table[asset];
      quotes[asset] = { usd: referencePrice(asset, ref, at), volume24h: ref.volume24h, marketCap: ref.marketCap };
    }
    return {
      source: this.name,
      at,
      assets: quotes,
      fiat: { EUR: referencePrice('EUR', this.table.EUR, at), GBP: referencePrice('GBP', this.table.GBP, at) },
    };
  }
}
