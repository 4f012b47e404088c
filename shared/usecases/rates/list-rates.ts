import * as z from 'zod';
import { parseInput } from '../ledger/input.js';
import type { RatesDeps } from './ports.js';
import { currentRates } from './current-rates.js';

/** `GET /rates/` variant A: every active currency's USD rate, with the snapshot's time and the next refresh. */
export const ListRatesInput = z.object({ now: z.date() });

export interface AllRates {
  readonly base_currency: 'USD';
  readonly rates: Record<string, string>;
  readonly last_updated: string;
  readonly next_update: string;
}

export async function listRates(input: z.input<typeof ListRatesInput>, deps: RatesDeps): Promise<AllRates> {
  const { now } = parseInput(ListRatesInput, input);
  const stored = await currentRates(deps, now);
  return {
    base_currency: 'USD',
    rates: Object.fromEntries(Object.entries(stored.rates).map(([code, s]) => [code, s.usd])),
    last_updated: stored.at,
    next_update: stored.nextUpdate,
  };
}
