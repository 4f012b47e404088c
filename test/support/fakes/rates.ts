import type { HourCandles, StoredRates } from '../../../shared/domain/rates.js';
import type { RatesStore } from '../../../shared/usecases/rates/ports.js';

/** The rates store in memory, for unit tests. */
export class MemoryRatesStore implements RatesStore {
  snapshot: StoredRates | null = null;
  readonly hours = new Map<string, HourCandles>();

  async current(): Promise<StoredRates | null> {
    return this.snapshot;
  }

  async putCurrent(snapshot: StoredRates): Promise<void> {
    this.snapshot = snapshot;
  }

  async candles(fromHour: string, toHour: string): Promise<HourCandles[]> {
    return [...this.hours.values()].filter((h) => h.hour >= fromHour && h.hour <= toHour).sort((a, b) => (a.hour < b.hour ? -1 : 1));
  }

  async putCandles(candles: HourCandles): Promise<void> {
    this.hours.set(candles.hour, candles);
  }
}
