import type { Clock } from '../../domain/clock.js';
import type { ServedNetworks } from '../../domain/currencies.js';
import type { HourCandles, StoredRates } from '../../domain/rates.js';
import type { RateProvider } from '../../rates/port.js';

/** Where rate snapshots and hour candles are kept (shared/store/rates.ts is the DynamoDB one). */
export interface RatesStore {
  current(): Promise<StoredRates | null>;
  putCurrent(snapshot: StoredRates): Promise<void>;
  candles(fromHour: string, toHour: string): Promise<HourCandles[]>;
  putCandles(candles: HourCandles, nowSeconds: number): Promise<void>;
}

/** What the rate use cases read: the store, the market-data source and the currencies switched off. */
export interface RatesDeps {
  readonly store: RatesStore;
  readonly provider: RateProvider;
  /** Currency codes switched off by configuration. */
  readonly disabled: ReadonlySet<string>;
}

/** The rates-refresher's ports: the rates, and the time of a run when the schedule gives none. */
export interface RatesPorts extends RatesDeps {
  readonly clock: Clock;
}

/** What the list of rates reads: the rates, and what this deployment serves (only offered currencies are listed). */
export interface ListRatesDeps {
  readonly rates: RatesDeps;
  readonly served: ServedNetworks;
}
