import type { ScheduledEvent } from 'aws-lambda';
import { defaultRatesDeps } from '../../shared/usecases/rates/deps.js';
import { refreshRates } from '../../shared/usecases/rates/refresh-rates.js';

/**
 * EventBridge, every minute: take a rates snapshot (shared/usecases/rates/refresh-rates.ts). A failure
 * throws, so the invocation counts as an error (alarm) and the previous snapshot stays in place.
 */
export async function handler(event?: Partial<Pick<ScheduledEvent, 'time'>>): Promise<{ at: string; currencies: number; source: string }> {
  const now = event?.time ? new Date(event.time) : new Date();
  const snapshot = await refreshRates({ now: Number.isNaN(now.getTime()) ? new Date() : now }, defaultRatesDeps());
  return { at: snapshot.at, currencies: Object.keys(snapshot.rates).length, source: snapshot.source };
}
