import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { offeredCurrencies } from '../../domain/currencies.js';
import { parseInput } from '../ledger/input.js';
import type { ListRatesDeps } from './ports.js';
import { currentRates } from './current-rates.js';

/**
 * `GET /rates/` variant A: the USD rate of every currency this deployment offers (`offeredCurrencies`: served for
 * payments or withdrawals, not switched off), in catalogue order, with the snapshot's time and the next refresh. A
 * currency the gateway values but does not offer (BTC without a Bitcoin chain, custody's USDT on Solana) is not listed.
 */
export const ListRatesInput = lazySchema(() => z.object({ now: z.date() }));

export interface AllRates {
  readonly base_currency: 'USD';
  readonly rates: Record<string, string>;
  readonly last_updated: string;
  readonly next_update: string;
}

export async function listRates(input: z.input<ReturnType<typeof ListRatesInput>>, deps: ListRatesDeps): Promise<AllRates> {
  const { now } = parseInput(ListRatesInput(), input);
  const stored = await currentRates(deps.rates, now);
  const offered = offeredCurrencies(deps.served, deps.rates.disabled).flatMap((c) => {
    const stats = Object.hasOwn(stored.rates, c.code) ? stored.rates[c.code] : undefined;
    return stats ? [[c.code, stats.usd] as const] : [];
  });
  return {
    base_currency: 'USD',
    rates: Object.fromEntries(offered),
    last_updated: stored.at,
    next_update: stored.nextUpdate,
  };
}
