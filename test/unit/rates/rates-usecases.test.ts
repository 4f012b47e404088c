import { GatewayError, NotFoundError, ValidationError } from '../../../shared/domain/errors.js';
import { creditEntry, MAIN } from '../../../shared/domain/ledger.js';
import { cmp } from '../../../shared/domain/money.js';
import type { MarketSnapshot, RateProvider } from '../../../shared/rates/port.js';
import { ReferenceRateProvider } from '../../../shared/rates/reference.js';
import { listCurrencies, ListCurrenciesQuery } from '../../../shared/usecases/currencies/list-currencies.js';
import { InMemoryLedger } from '../../support/fakes/ledger.js';
import { calculateRate, CalculateRateBody } from '../../../shared/usecases/rates/calculate-rate.js';
import { convertAmount, ConvertAmountQuery } from '../../../shared/usecases/rates/convert-amount.js';
import { getRate } from '../../../shared/usecases/rates/get-rate.js';
import { listRates } from '../../../shared/usecases/rates/list-rates.js';
import type { RatesDeps } from '../../../shared/usecases/rates/ports.js';
import { refreshRates } from '../../../shared/usecases/rates/refresh-rates.js';
import { MemoryRatesStore } from '../../support/fakes/rates.js';
import { CHAIN_NETWORKS, serving } from '../../support/fakes/payments.js';

/** A fixed market: round numbers make expected amounts easy to state. */
class FixedProvider implements RateProvider {
  readonly name = 'fixed';
  calls = 0;
  constructor(private readonly usd: Record<string, string> = { USDT: '1', USDC: '1', DAI: '1', ETH: '2000', WETH: '2000', BTC: '50000', MATIC: '0.5' }) {}
  async fetchSnapshot(assets: readonly string[], options: { now?: Date } = {}): Promise<MarketSnapshot> {
    this.calls++;
    return {
      source: this.name,
      at: options.now ?? new Date(),
      assets: Object.fromEntries(assets.map((a) => [a, { usd: this.usd[a] ?? '1', volume24h: '1000', marketCap: null }])),
      fiat: { EUR: '1.1', GBP: '1.25' },
    };
  }
}

const now = new Date('2030-03-01T12:00:00Z');
const deps = (overrides: Partial<RatesDeps> = {}): RatesDeps => ({
  store: new MemoryRatesStore(),
  provider: new FixedProvider(),
  disabled: new Set(),
  ...overrides,
});
const settings = { transaction_fee: '1', is_fee_paid_by_user: false };

describe('rates-refresher use case', () => {
  it('stores a snapshot without disabled currencies, with 24 h statistics from hour candles', async () => {
    const store = new MemoryRatesStore();
    const d = deps({ store, provider: new ReferenceRateProvider(), disabled: new Set(['MATIC']) });
    const start = Date.parse('2030-03-01T00:00:00Z');
    for (let minute = 0; minute <= 26 * 60; minute += 20) await refreshRates({ now: new Date(start + minute * 60_000) }, d);
    const snapshot = store.snapshot;
    expect(snapshot).not.toBeNull();
    expect(Object.keys(snapshot?.rates ?? {})).not.toContain('MATIC');
    expect(Object.keys(snapshot?.rates ?? {})).toContain('ETH');
    // Held by custody accounts, priced though taken for neither payments nor withdrawals.
    expect(Object.keys(snapshot?.rates ?? {})).toContain('USDTSOL');
    const eth = snapshot?.rates.ETH;
    expect(eth && cmp(eth.high24h, eth.low24h)).toBe(1);
    expect(eth && cmp(eth.high24h, eth.usd)).toBeGreaterThanOrEqual(0);
    expect(eth && cmp(eth.low24h, eth.usd)).toBeLessThanOrEqual(0);
    expect(snapshot?.fiat.EUR).toBeDefined();
    expect(snapshot?.nextUpdate).toBe(new Date(Date.parse(snapshot?.at ?? '') + 60_000).toISOString());
  });
});

describe('GET /rates/ and /rates/{currency}/', () => {
  it('variant A lists active currencies against USD (taking a first snapshot if none exists)', async () => {
    const provider = new FixedProvider();
    const d = deps({ provider, disabled: new Set(['BTC']) });
    const all = await listRates({ now }, { rates: d, served: serving(CHAIN_NETWORKS) });
    expect(all.base_currency).toBe('USD');
    expect(all.rates.ETH).toBe('2000');
    expect(all.rates.BTC).toBeUndefined();
    await listRates({ now }, { rates: d, served: serving(CHAIN_NETWORKS) });
    expect(provider.calls).toBe(1);
  });

  it('variant B converts with JSON numbers, a fee and full details', async () => {
    const query = ConvertAmountQuery().parse({ amount: '100', currency_to: 'ETH', full: 'true', fee_percentage: '1', is_fee_paid_by_user: 'true' });
    const answer = await convertAmount({ query, settings, now }, deps());
    expect(JSON.parse(JSON.stringify(answer))).toMatchObject({
      currency_from: 'USD',
      currency_to: 'ETH',
      amount: '100',
      estimated_amount: '0.0505',
      rate: '0.0005',
      fee_percentage: '1',
      fee_amount: '0.0005',
    });
    expect(answer.amount.constructor.name).toBe('JsonNumber');
    const plain = await convertAmount(
      { query: ConvertAmountQuery().parse({ currency_to: 'EUR', currency_from: 'GBP' }), settings: { transaction_fee: '0', is_fee_paid_by_user: false }, now },
      deps(),
    );
    expect(plain.estimated_amount.text).toBe('1.14');
    expect(plain.fee_amount).toBeUndefined();
  });

  it('single rate: statistics, and 404 not_found with details.currency', async () => {
    const rate = await getRate({ currency: 'USDTERC20', now }, deps());
    expect(rate).toMatchObject({ currency: 'USDTERC20', rate_usd: '1', change_24h: '0', volume_24h: '1000', market_cap: '0' });
    const error = await getRate({ currency: 'DOGE', now }, deps()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).details).toEqual({ currency: 'DOGE' });
  });
});

describe('POST /rates/calculate/', () => {
  it('adds the tenant fee when the customer pays it, rounds crypto up, quotes for five minutes', async () => {
    const body = CalculateRateBody().parse({ amount: '100', from_currency: 'USD', to_currency: 'ETH' });
    const calc = await calculateRate({ body, settings: { transaction_fee: '1.5' }, now }, deps());
    expect(calc).toEqual({
      from_currency: 'USD',
      from_amount: '100',
      to_currency: 'ETH',
      to_amount: '0.05000000',
      exchange_rate: '0.0005',
      fee_amount: '0.00075000',
      fee_currency: 'ETH',
      total_amount: '0.05075000',
      rate_expires_at: '2030-03-01T12:05:00.000Z',
      calculation_timestamp: '2030-03-01T12:00:00.000Z',
    });
    const merchantPays = await calculateRate({ body: { ...body, is_fee_paid_by_user: false }, settings: { transaction_fee: '1.5' }, now }, deps());
    expect(merchantPays.total_amount).toBe('0.05000000');
    const minFee = await calculateRate(
      { body: CalculateRateBody().parse({ amount: '10', from_currency: 'EUR', to_currency: 'USDTERC20' }), settings: { transaction_fee: '0.1' }, now },
      deps(),
    );
    expect(minFee).toMatchObject({ to_amount: '11.000000', fee_amount: '0.100000', total_amount: '11.100000' });
  });

  it('answers 422 invalid_currency with the supported list, and 400 for an amount not above zero', async () => {
    const error = await calculateRate(
      { body: CalculateRateBody().parse({ amount: '1', from_currency: 'USD', to_currency: 'DOGE' }), settings, now },
      deps(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_currency');
    expect((error as GatewayError).status).toBe(422);
    expect((error as GatewayError).details.currency).toBe('DOGE');
    expect((error as GatewayError).details.supported_currencies).toEqual(expect.arrayContaining(['USDTERC20', 'ETH', 'USD', 'EUR']));
    await expect(
      calculateRate({ body: CalculateRateBody().parse({ amount: '0', from_currency: 'USD', to_currency: 'ETH' }), settings, now }, deps()),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(CalculateRateBody().safeParse({ amount: '-1', from_currency: 'USD', to_currency: 'ETH' }).success).toBe(false);
  });
});

describe('GET /currencies/', () => {
  const ledger = new InMemoryLedger();
  const input = (q: Record<string, string>) => ({ tenantId: 't1', query: ListCurrenciesQuery().parse(q), now });

  it('lists codes, full records and min/max with USD values', async () => {
    const simple = await listCurrencies(input({}), { ledger, rates: deps(), served: serving(CHAIN_NETWORKS) });
    expect(simple.currencies).toContain('USDTTRC20');
    const full = await listCurrencies(input({ full: 'true', min_max: 'true', include_usd: 'true' }), {
      ledger,
      rates: deps(),
      served: serving(CHAIN_NETWORKS),
    });
    expect(full.currencies).toContainEqual({
      currency: 'USDTTRC20',
      name: 'Tether USD (TRC-20)',
      token: 'usdt',
      blockchain: 'trx',
      is_popular: true,
      is_stable: true,
      min_amount: '1',
      max_amount: '1000000',
      min_amount_usd: '1.00',
      max_amount_usd: '1000000.00',
    });
    const minMax = await listCurrencies(input({ min_max: 'true' }), { ledger, rates: deps(), served: serving(CHAIN_NETWORKS) });
    expect(minMax.currencies[0]).toEqual({ currency: 'USDTERC20', min_amount: '10', max_amount: '1000000' });
  });

  it('refuses include_usd without min_max', async () => {
    await expect(listCurrencies(input({ include_usd: 'true' }), { ledger, rates: deps(), served: serving(CHAIN_NETWORKS) })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('with withdrawal=true lists only currencies with a positive balance', async () => {
    await ledger.post({ tenantId: 't1', entry: creditEntry({ account: MAIN, currency: 'USDTTRC20', amount: '5', type: 'adjustment', reason: 'seed' }) });
    await ledger.post({ tenantId: 't2', entry: creditEntry({ account: MAIN, currency: 'ETH', amount: '5', type: 'adjustment', reason: 'seed' }) });
    const list = await listCurrencies(input({ withdrawal: 'true' }), { ledger, rates: deps(), served: serving(CHAIN_NETWORKS) });
    expect(list).toEqual({ currencies: ['USDTTRC20'] });
  });
});
