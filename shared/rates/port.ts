import type { PriceAsset } from '../domain/currencies.js';
import type { Decimal } from '../domain/money.js';

/**
 * The market-data port: where USD prices come from. Adapters: `http.ts` (a CoinGecko-style `simple/price`
 * API), `reference.ts` (an offline table moving deterministically, the local stack's default) and
 * `fallback.ts` (asks a second source when the first fails).
 */

export interface MarketQuote {
  /** USD per unit. */
  readonly usd: Decimal;
  readonly volume24h: Decimal | null;
  readonly marketCap: Decimal | null;
}

export interface MarketSnapshot {
  /** Which source answered (the fallback names the one used). */
  readonly source: string;
  readonly at: Date;
  readonly assets: Readonly<Partial<Record<PriceAsset, MarketQuote>>>;
  /** USD per unit of each fiat currency. */
  readonly fiat: Readonly<Partial<Record<'EUR' | 'GBP', Decimal>>>;
}

export interface FetchOptions {
  readonly signal?: AbortSignal;
  readonly now?: Date;
}

export interface RateProvider {
  readonly name: string;
  fetchSnapshot(assets: readonly PriceAsset[], options?: FetchOptions): Promise<MarketSnapshot>;
}

/** A source failed: unreachable, timed out, answered an error status or a body that is not a price table. */
export class RateSourceError extends Error {
  readonly source: string;

  constructor(source: string, message: string, options?: { cause?: unknown }) {
    super(`${source}: ${message}`, options);
    this.name = 'RateSourceError';
    this.source = source;
  }
}
