import type { ScheduledEvent } from 'aws-lambda';
import { ratesRuntime } from '../../shared/runtime/rates.js';
import { refreshRates } from '../../shared/usecases/rates/refresh-rates.js';

const deps = ratesRuntime();

/**
 * EventBridge, every minute: take a rates snapshot (shared/usecases/rates/refresh-rates.ts) at the event's
 * time (the clock's when it has none). A failure throws, so the invocation counts as an error (alarm) and
 * the previous snapshot stays in place.
 */
export async function handler(event?: Partial<Pick<ScheduledEvent, 'time'>>): Promise<{ at: string; currencies: number; source: string }> {
  const at = event?.time ? new Date(event.time) : deps.clock.now();
  const snapshot = await refreshRates({ now: Number.isNaN(at.getTime()) ? deps.clock.now() : at }, deps);
  return { at: snapshot.at, currencies: Object.keys(snapshot.rates).length, source: snapshot.source };
}
