import { config, type Config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { rateProviderFromConfig } from '../rates/provider.js';
import { dynamoRatesStore } from '../store/rates.js';
import type { RatesPorts } from '../usecases/rates/ports.js';
import { disabledCurrencies } from './currencies.js';

/** The configured rates store, market-data source and switched-off currencies. */
export function ratesRuntime(cfg: Config = config()): RatesPorts {
  return { store: dynamoRatesStore, provider: rateProviderFromConfig(cfg), disabled: disabledCurrencies(cfg), clock: systemClock };
}
