import { ratesRuntime } from '../../shared/runtime/rates.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import { refreshRates } from '../../shared/usecases/rates/refresh-rates.js';

const deps = ratesRuntime();

/**
 * EventBridge, every minute: take a rates snapshot (shared/usecases/rates/refresh-rates.ts) at the event's
 * time (the clock's when it has none). A failure throws, so the invocation counts as an error (alarm) and
 * the previous snapshot stays in place.
 */
export const handler = scheduledWorker('rates-refresher', async ({ time }): Promise<{ at: string; currencies: number; source: string }> => {
  const snapshot = await refreshRates({ now: time ?? deps.clock.now() }, deps);
  return { at: snapshot.at, currencies: Object.keys(snapshot.rates).length, source: snapshot.source };
});
