import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { FallbackRateProvider } from './fallback.js';
import { HttpRateProvider } from './http.js';
import type { RateProvider } from './port.js';
import { ReferenceRateProvider } from './reference.js';

/**
 * The configured market-data source: `RATES_SOURCE=http` asks RATES_SOURCE_URL, then RATES_FALLBACK_URL;
 * `reference` uses the offline table. Unset: http in production, reference elsewhere (the local stack).
 */
export function rateProviderFromConfig(cfg: Config = config()): RateProvider {
  const source = cfg.RATES_SOURCE ?? (cfg.isProduction ? 'http' : 'reference');
  if (source === 'reference') return new ReferenceRateProvider();
  const sources: RateProvider[] = [new HttpRateProvider({ baseUrl: cfg.RATES_SOURCE_URL, timeoutMs: cfg.RATES_TIMEOUT_MS })];
  if (cfg.RATES_FALLBACK_URL) {
    sources.push(
      new HttpRateProvider({ baseUrl: cfg.RATES_FALLBACK_URL, timeoutMs: cfg.RATES_TIMEOUT_MS, name: `fallback ${new URL(cfg.RATES_FALLBACK_URL).host}` }),
    );
  }
  return new FallbackRateProvider(sources);
}
