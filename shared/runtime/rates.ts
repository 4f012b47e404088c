import { config, type Config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { rateProviderFromConfig } from '../rates/provider.js';
import { dynamoRatesStore } from '../store/rates.js';
import type { RatesPorts } from '../usecases/rates/ports.js';

/** The currencies switched off in this deployment (`DISABLED_CURRENCIES`): refused by rates and left out of every list. */
export function disabledCurrencies(cfg: Config = config()): ReadonlySet<string> {
  return new Set(cfg.DISABLED_CURRENCIES);
}

/** The configured rates store, market-data source and switched-off currencies. */
export function ratesRuntime(cfg: Config = config()): RatesPorts {
  return { store: dynamoRatesStore, provider: rateProviderFromConfig(cfg), disabled: disabledCurrencies(cfg), clock: systemClock };
}
