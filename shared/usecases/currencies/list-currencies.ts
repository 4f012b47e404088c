import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { blockchainLabel, servedCurrencies, withdrawalMinimum } from '../../domain/currencies.js';
import { ValidationError } from '../../domain/errors.js';
import { MAIN } from '../../domain/ledger.js';
import { isPositive } from '../../domain/money.js';
import { usdValue } from '../../domain/rates.js';
import { queryBoolean } from '../schema.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import type { ListCurrenciesDeps } from './ports.js';

/**
 * `GET /currencies/`: the currencies this deployment takes payments in, or with `withdrawal=true` those it sends
 * withdrawals of in which the tenant has a positive available balance. `full` adds the descriptive fields,
 * `min_max` the payment bounds, or with `withdrawal=true` the withdrawal minimum the withdrawal code applies
 * (`withdrawalMinimum`) with the catalogue's maximum, `include_usd` (only with `min_max=true`; otherwise 400) their
 * USD values at the current rates (min rounded up, max down, to the cent). Without `full` or `min_max` the answer
 * is the simple list of codes.
 */
export const ListCurrenciesQuery = lazySchema(() =>
  z.object({
    full: queryBoolean().default(false),
    min_max: queryBoolean().default(false),
    include_usd: queryBoolean().default(false),
    withdrawal: queryBoolean().default(false),
  }),
);
export type ListCurrenciesQuery = z.output<ReturnType<typeof ListCurrenciesQuery>>;

export interface CurrencyRecord {
  readonly currency: string;
  readonly name?: string;
  readonly token?: string;
  readonly blockchain?: string;
  readonly is_popular?: boolean;
  readonly is_stable?: boolean;
  readonly min_amount?: string;
  readonly max_amount?: string;
  readonly min_amount_usd?: string | null;
  readonly max_amount_usd?: string | null;
}

export type CurrencyList = { readonly currencies: string[] } | { readonly currencies: CurrencyRecord[] };

export interface ListCurrenciesInput {
  readonly tenantId: string;
  readonly query: ListCurrenciesQuery;
  readonly now: Date;
}

export type { ListCurrenciesDeps } from './ports.js';

export async function listCurrencies(input: ListCurrenciesInput, deps: ListCurrenciesDeps): Promise<CurrencyList> {
  const { query } = input;
  if (query.include_usd && !query.min_max) {
    throw new ValidationError({ include_usd: ['include_usd requires min_max=true.'] });
  }
  let currencies: CurrencyDefinition[] = servedCurrencies(query.withdrawal ? 'withdrawals' : 'payments', deps.served, deps.rates.disabled);
  if (query.withdrawal) {
    const funded = new Set(
      (await deps.ledger.balances(input.tenantId, MAIN)).filter((row) => isPositive(row.balance.amount)).map((row) => row.currency as string),
    );
    currencies = currencies.filter((c) => funded.has(c.code));
  }
  if (!query.full && !query.min_max) return { currencies: currencies.map((c) => c.code) };

  const rates = query.include_usd ? usdRatesOf(await currentRates(deps.rates, input.now)) : null;
  const minimum = (c: CurrencyDefinition) => (query.withdrawal ? withdrawalMinimum(c) : c.minAmount);
  return {
    currencies: currencies.map((c): CurrencyRecord => ({
      currency: c.code,
      ...(query.full ? { name: c.name, token: c.token.toLowerCase(), blockchain: blockchainLabel(c), is_popular: c.isPopular, is_stable: c.isStable } : {}),
      ...(query.min_max ? { min_amount: minimum(c), max_amount: c.maxAmount } : {}),
      ...(rates ? { min_amount_usd: usdValue(c, minimum(c), rates, 'up'), max_amount_usd: usdValue(c, c.maxAmount, rates, 'down') } : {}),
    })),
  };
}
