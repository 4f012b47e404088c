import * as z from 'zod';
import { JsonNumber } from '../../shared/domain/json-number.js';
import { READ } from '../../shared/domain/scopes.js';
import { ok, principalOf, routesOf } from '../../shared/http/route.js';
import { ListCurrenciesQuery, listCurrencies } from '../../shared/usecases/currencies/list-currencies.js';
import type { ListCurrenciesDeps } from '../../shared/usecases/currencies/ports.js';
import { CalculateRateBody, calculateRate } from '../../shared/usecases/rates/calculate-rate.js';
import { ConvertAmountQuery, convertAmount } from '../../shared/usecases/rates/convert-amount.js';
import { getRate } from '../../shared/usecases/rates/get-rate.js';
import { listRates } from '../../shared/usecases/rates/list-rates.js';
import { checkQueryForms } from '../../shared/usecases/schema.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import type { LazyOutput } from '../../shared/domain/lazy-schema.js';

/** Currencies and rates (spec 4.2). Thin: parse, call one use case, answer. */

const CurrencyRecord = lazySchema(() =>
  z.object({
    currency: z.string(),
    name: z.string().optional(),
    token: z.string().optional().describe('lowercase'),
    blockchain: z.string().optional().describe('lowercase network code'),
    is_popular: z.boolean().optional(),
    is_stable: z.boolean().optional(),
    min_amount: z.string().optional(),
    max_amount: z.string().optional(),
    min_amount_usd: z.string().nullable().optional(),
    max_amount_usd: z.string().nullable().optional(),
  }),
);
const CurrencyList = lazySchema(() => z.object({ currencies: z.union([z.array(z.string()), z.array(CurrencyRecord())]) }));

const AllRates = lazySchema(() =>
  z.object({ base_currency: z.literal('USD'), rates: z.record(z.string(), z.string()), last_updated: z.string(), next_update: z.string() }),
);
/** A number written from its exact decimal text (shared/domain/json-number.ts), published as a JSON number. */
const exactNumber = lazySchema(() => z.custom<JsonNumber>((value) => value instanceof JsonNumber).meta({ type: 'number' }));
const Conversion = lazySchema(() =>
  z.object({
    currency_from: z.string(),
    currency_to: z.string(),
    amount: exactNumber(),
    estimated_amount: exactNumber().describe('What the customer sends: the converted amount, plus the fee when the customer pays it'),
    rate: exactNumber(),
    fee_percentage: exactNumber().optional(),
    fee_amount: exactNumber().optional(),
    timestamp: z.string().optional(),
  }),
);
const SingleRate = lazySchema(() =>
  z.object({
    currency: z.string(),
    rate_usd: z.string(),
    change_24h: z.string(),
    change_24h_percent: z.string(),
    high_24h: z.string(),
    low_24h: z.string(),
    volume_24h: z.string(),
    market_cap: z.string(),
    last_updated: z.string(),
  }),
);
const Calculation = lazySchema(() =>
  z.object({
    from_currency: z.string(),
    from_amount: z.string(),
    to_currency: z.string(),
    to_amount: z.string().describe('Before fees'),
    exchange_rate: z.string(),
    fee_amount: z.string(),
    fee_currency: z.string(),
    total_amount: z.string().describe('What the customer sends'),
    rate_expires_at: z.string(),
    calculation_timestamp: z.string(),
  }),
);

const RatesAnswer = lazySchema(() => z.union([AllRates(), Conversion()]));
/** A currency code in the path (the use case answers 404 for one it does not know). */
const CurrencyParam = lazySchema(() => z.object({ currency: z.string().min(1) }));

const route = routesOf<ListCurrenciesDeps>();

/** Variant B when `currency_to` is given (DESIGN 10), else variant A. */
const RatesQuery = lazySchema(() =>
  ConvertAmountQuery()
    .partial({ currency_to: true })
    .check(
      checkQueryForms(
        { name: 'conversion form', by: ['currency_to'], takes: ['amount', 'currency_from', 'fee_percentage', 'is_fee_paid_by_user', 'full'] },
        { name: 'list form', takes: [] },
      ),
    ),
);

export const currencyRoutes = [
  route({
    method: 'GET',
    path: '/currencies/',
    auth: 'bearer',
    scopes: READ,
    query: ListCurrenciesQuery,
    doc: {
      summary: 'Supported currencies',
      description:
        "Only the currencies this deployment serves: payable ones (a chain endpoint and a forwarder factory on their network, a known token contract), or with `withdrawal` those it sends (a chain endpoint and the hot wallet's key) in which the tenant has a positive balance. `full` adds name, token, blockchain, is_popular, is_stable; `min_max` the payment bounds (with `withdrawal`, the withdrawal minimum the withdrawal applies); `include_usd` (requires `min_max=true`) their USD values.",
      tags: ['Currencies'],
      responses: { 200: { description: 'Currencies', schema: CurrencyList } },
    },
    handle: async (req, deps) => {
      const list: LazyOutput<typeof CurrencyList> = await listCurrencies({ tenantId: principalOf(req).tenant.id, query: req.query, now: req.now }, deps);
      return ok(list);
    },
  }),
  route({
    method: 'GET',
    path: '/rates/',
    auth: 'bearer',
    scopes: READ,
    query: RatesQuery,
    doc: {
      summary: 'Exchange rates against USD',
      description:
        'Without `currency_to`: every currency this deployment offers, for payments or withdrawals (variant A). With `currency_to`: a conversion of `amount` (default 1.0) from `currency_from` (default USD), answered in JSON numbers (variant B).',
      tags: ['Rates'],
      responses: { 200: { description: 'Rates (variant A) or a conversion (variant B)', schema: RatesAnswer } },
    },
    handle: async (req, deps) => {
      const { currency_to: to } = req.query;
      const { settings } = principalOf(req).tenant;
      const answer: LazyOutput<typeof RatesAnswer> =
        to === undefined
          ? await listRates({ now: req.now }, deps)
          : await convertAmount({ query: { ...req.query, currency_to: to }, settings, now: req.now }, deps.rates);
      return ok(answer);
    },
  }),
  route({
    method: 'GET',
    path: '/rates/{currency}/',
    auth: 'bearer',
    scopes: READ,
    params: CurrencyParam,
    doc: {
      summary: 'One currency against USD, with 24-hour statistics',
      tags: ['Rates'],
      responses: { 200: { description: 'Rate', schema: SingleRate }, 404: { description: 'not_found (details.currency)' } },
    },
    handle: async (req, deps) => {
      const rate: LazyOutput<typeof SingleRate> = await getRate({ currency: req.params.currency, now: req.now }, deps.rates);
      return ok(rate);
    },
  }),
  route({
    method: 'POST',
    path: '/rates/calculate/',
    auth: 'bearer',
    scopes: READ,
    body: CalculateRateBody,
    doc: {
      summary: 'Calculate an amount in another currency, with the platform fee',
      description:
        'Creates nothing. The quote holds five minutes (`rate_expires_at`). 422 `invalid_currency` with details.currency and details.supported_currencies.',
      tags: ['Rates'],
      responses: { 200: { description: 'Calculation', schema: Calculation }, 422: { description: 'invalid_currency' } },
    },
    handle: async (req, deps) => {
      const calculation: LazyOutput<typeof Calculation> = await calculateRate(
        { body: req.body, settings: principalOf(req).tenant.settings, now: req.now },
        deps.rates,
      );
      return ok(calculation);
    },
  }),
];
