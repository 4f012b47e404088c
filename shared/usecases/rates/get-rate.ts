import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { NotFoundError } from '../../domain/errors.js';
import { parseInput } from '../ledger/input.js';
import type { RatesDeps } from './ports.js';
import { currentRates } from './current-rates.js';

/** `GET /rates/{currency}/`: one active currency's USD rate with 24 h statistics; 404 `not_found` otherwise. */
export const GetRateInput = lazySchema(() => z.object({ currency: z.string(), now: z.date() }));

export interface SingleRate {
  readonly currency: string;
  readonly rate_usd: string;
  readonly change_24h: string;
  readonly change_24h_percent: string;
  readonly high_24h: string;
  readonly low_24h: string;
  readonly volume_24h: string;
  readonly market_cap: string;
  readonly last_updated: string;
}

export async function getRate(input: z.input<ReturnType<typeof GetRateInput>>, deps: RatesDeps): Promise<SingleRate> {
  const { currency, now } = parseInput(GetRateInput(), input);
  const stored = await currentRates(deps, now);
  const stats = Object.hasOwn(stored.rates, currency) ? stored.rates[currency] : undefined;
  if (!stats) throw new NotFoundError(`No rate for currency ${currency}.`, { currency });
  return {
    currency,
    rate_usd: stats.usd,
    change_24h: stats.change24h,
    change_24h_percent: stats.change24hPercent,
    high_24h: stats.high24h,
    low_24h: stats.low24h,
    // Unknown market figures (a source without them) read "0".
    volume_24h: stats.volume24h ?? '0',
    market_cap: stats.marketCap ?? '0',
    last_updated: stored.at,
  };
}
