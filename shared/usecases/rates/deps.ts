import { config } from '../../config/config.js';
import { rateProviderFromConfig } from '../../rates/provider.js';
import { dynamoRatesStore } from '../../store/rates.js';
import type { RatesDeps } from './ports.js';

let cached: RatesDeps | undefined;

/** The configured store, market-data source and disabled currencies (built once per process). */
export function defaultRatesDeps(): RatesDeps {
  cached ??= { store: dynamoRatesStore, provider: rateProviderFromConfig(), disabled: new Set(config().DISABLED_CURRENCIES) };
  return cached;
}

/** Forget the cached dependencies (tests that change the configuration). */
export function resetRatesDeps(): void {
  cached = undefined;
}
