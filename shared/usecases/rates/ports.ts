import type { HourCandles } from '../../domain/rates.js';
import type { RateProvider } from '../../rates/port.js';
import type { StoredRates } from '../../store/rates.js';

/** Where rate snapshots and hour candles are kept (shared/store/rates.ts is the DynamoDB one). */
export interface RatesStore {
  current(): Promise<StoredRates | null>;
  putCurrent(snapshot: StoredRates): Promise<void>;
  candles(fromHour: string, toHour: string): Promise<HourCandles[]>;
  putCandles(candles: HourCandles, nowSeconds: number): Promise<void>;
}

export interface RatesDeps {
  readonly store: RatesStore;
  readonly provider: RateProvider;
  /** Currency codes switched off by configuration. */
  readonly disabled: ReadonlySet<string>;
}
