import { parse } from 'lossless-json';
import type { PriceAsset } from '../domain/currencies.js';
import { JsonNumber } from '../domain/json-number.js';
import type { Decimal } from '../domain/money.js';
import { div, isPositive, normalize } from '../domain/money.js';
import { RATE_SCALE } from '../domain/rates.js';
import type { FetchOptions, MarketQuote, MarketSnapshot, RateProvider } from './port.js';
import { RateSourceError } from './port.js';

/**
 * Market data over HTTP from a CoinGecko-style `simple/price` API:
 *
 *   GET <base>/simple/price?ids=tether,bitcoin&vs_currencies=usd,eur,gbp&include_market_cap=true
 *       &include_24hr_vol=true&precision=full
 *   200 {"bitcoin":{"usd":67187.34,"usd_market_cap":1.32e12,"usd_24h_vol":2.1e10,"eur":61850.2,"gbp":52950.8}, ...}
 *
 * The body is parsed losslessly (every number keeps its exact text), so no price passes through a float.
 * EUR and GBP get USD rates from the cross rate of the most liquid asset quoted in all three. Each request
 * is bounded by a timeout (AbortSignal); the caller's signal aborts it too.
 */

/** CoinGecko coin ids of the catalogue's price assets. */
export const COINGECKO_IDS: Readonly<Record<PriceAsset, string>> = {
  USDT: 'tether',
  USDC: 'usd-coin',
  DAI: 'dai',
  ETH: 'ethereum',
  WETH: 'weth',
  BTC: 'bitcoin',
  MATIC: 'matic-network',
};

/** Assets tried in order for the EUR and GBP cross rates. */
const CROSS_RATE_ORDER: readonly PriceAsset[] = ['BTC', 'ETH', 'USDT', 'USDC', 'DAI', 'WETH', 'MATIC'];

export interface HttpRateProviderOptions {
  /** Base URL, e.g. `https://api.coingecko.com/api/v3`. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Name in logs and snapshots; default the URL's host. */
  readonly name?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly ids?: Readonly<Record<PriceAsset, string>>;
  readonly fetch?: typeof fetch;
}

function decimalOf(value: unknown): Decimal | null {
  if (!(value instanceof JsonNumber)) return null;
  try {
    return normalize(value);
  } catch {
    return null;
  }
}

export class HttpRateProvider implements RateProvider {
  readonly name: string;
  private readonly options: HttpRateProviderOptions;

  constructor(options: HttpRateProviderOptions) {
    this.options = options;
    this.name = options.name ?? new URL(options.baseUrl).host;
  }

  async fetchSnapshot(assets: readonly PriceAsset[], options: FetchOptions = {}): Promise<MarketSnapshot> {
    const ids = this.options.ids ?? COINGECKO_IDS;
    const wanted = [...new Set([...assets, 'BTC' as const])];
    const url = new URL(`${this.options.baseUrl.replace(/\/+$/, '')}/simple/price`);
    url.searchParams.set('ids', wanted.map((a) => ids[a]).join(','));
    url.searchParams.set('vs_currencies', 'usd,eur,gbp');
    url.searchParams.set('include_market_cap', 'true');
    url.searchParams.set('include_24hr_vol', 'true');
    url.searchParams.set('precision', 'full');

    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    let text: string;
    try {
      const response = await (this.options.fetch ?? fetch)(url, { headers: { accept: 'application/json', ...this.options.headers }, signal });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new RateSourceError(this.name, `answered ${response.status}`);
      }
      text = await response.text();
    } catch (error) {
      if (error instanceof RateSourceError) throw error;
      if (timeout.aborted) throw new RateSourceError(this.name, `no answer within ${this.options.timeoutMs} ms`, { cause: error });
      throw new RateSourceError(this.name, `request failed: ${(error as Error).message}`, { cause: error });
    }

    let body: unknown;
    try {
      body = parse(text, null, (value) => new JsonNumber(value));
    } catch (error) {
      throw new RateSourceError(this.name, 'answered a body that is not JSON', { cause: error });
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new RateSourceError(this.name, 'answered a body that is not a price table');
    const table = body as Record<string, Record<string, unknown> | undefined>;

    const quotes: Partial<Record<PriceAsset, MarketQuote>> = {};
    const cross: Partial<Record<PriceAsset, { usd: Decimal; eur: Decimal | null; gbp: Decimal | null }>> = {};
    for (const asset of wanted) {
      const row = table[ids[asset]];
      const usd = decimalOf(row?.usd);
      if (!row || !usd || !isPositive(usd)) continue;
      cross[asset] = { usd, eur: decimalOf(row.eur), gbp: decimalOf(row.gbp) };
      if (!assets.includes(asset)) continue;
      const volume = decimalOf(row.usd_24h_vol);
      const cap = decimalOf(row.usd_market_cap);
      quotes[asset] = { usd, volume24h: volume, marketCap: cap && isPositive(cap) ? cap : null };
    }
    if (Object.keys(quotes).length === 0 && assets.length > 0) throw new RateSourceError(this.name, 'answered no price for any requested asset');

    const fiat: { EUR?: Decimal; GBP?: Decimal } = {};
    for (const [code, key] of [
      ['EUR', 'eur'],
      ['GBP', 'gbp'],
    ] as const) {
      for (const asset of CROSS_RATE_ORDER) {
        const row = cross[asset];
        const local = row?.[key];
        if (row && local && isPositive(local)) {
          fiat[code] = div(row.usd, local, RATE_SCALE, 'half-even');
          break;
        }
      }
    }
    return { source: this.name, at: options.now ?? new Date(), assets: quotes, fiat };
  }
}
