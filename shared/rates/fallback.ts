import type { PriceAsset } from '../domain/currencies.js';
import type { FetchOptions, MarketSnapshot, RateProvider } from './port.js';
import { RateSourceError } from './port.js';

/**
 * Sources in order: the first answers; assets (or fiat rates) it lacks are asked of the next; a source that
 * fails or times out is skipped. Fails only when no source gives any price.
 */
export class FallbackRateProvider implements RateProvider {
  readonly name: string;

  constructor(
    private readonly providers: readonly RateProvider[],
    private readonly log: (line: string) => void = (line) => console.warn(line),
  ) {
    if (providers.length === 0) throw new Error('FallbackRateProvider needs at least one source');
    this.name = providers.map((p) => p.name).join(' > ');
  }

  async fetchSnapshot(assets: readonly PriceAsset[], options: FetchOptions = {}): Promise<MarketSnapshot> {
    let merged: { -readonly [K in keyof MarketSnapshot]: MarketSnapshot[K] } | undefined;
    const failures: Error[] = [];
    for (const provider of this.providers) {
      const missing = merged ? assets.filter((a) => !merged?.assets[a]) : [...assets];
      const fiatMissing = !merged?.fiat.EUR || !merged.fiat.GBP;
      if (merged && missing.length === 0 && !fiatMissing) break;
      try {
        const snapshot = await provider.fetchSnapshot(missing.length > 0 ? missing : assets, options);
        merged = merged
          ? {
              ...merged,
              source: `${merged.source}+${snapshot.source}`,
              assets: { ...snapshot.assets, ...merged.assets },
              fiat: { ...snapshot.fiat, ...merged.fiat },
            }
          : { ...snapshot };
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        failures.push(failure);
        this.log(JSON.stringify({ level: 'warn', msg: 'rate source failed', source: provider.name, error: failure.message }));
      }
    }
    if (!merged) {
      throw new RateSourceError(this.name, `every source failed: ${failures.map((f) => f.message).join('; ')}`, { cause: failures[0] });
    }
    return merged;
  }
}
