import type { PriceAsset } from '../domain/currencies.js';
import type { Decimal } from '../domain/money.js';

/**
 * Reference USD prices for the offline provider (the local stack's default market data). Each price moves
 * deterministically within ±`bandBps` basis points over `periodMinutes`, so the 24-hour high, low and
 * change are meaningful and every run of the same minute sees the same prices. Not market data: never the
 * source in production (RATES_SOURCE defaults to `http` there).
 */
export interface ReferencePrice {
  readonly usd: Decimal;
  /** Half-width of the band, in basis points of `usd`. */
  readonly bandBps: number;
  /** Minutes of one full swing (low -> high -> low). */
  readonly periodMinutes: number;
  readonly volume24h: Decimal | null;
  readonly marketCap: Decimal | null;
}

export const REFERENCE_PRICES: Readonly<Record<PriceAsset | 'EUR' | 'GBP', ReferencePrice>> = {
  USDT: { usd: '1', bandBps: 10, periodMinutes: 180, volume24h: '52000000000', marketCap: '118000000000' },
  USDC: { usd: '1', bandBps: 8, periodMinutes: 240, volume24h: '7000000000', marketCap: '34000000000' },
  DAI: { usd: '1', bandBps: 12, periodMinutes: 300, volume24h: '250000000', marketCap: '5300000000' },
  ETH: { usd: '3000', bandBps: 300, periodMinutes: 720, volume24h: '15000000000', marketCap: '360000000000' },
  WETH: { usd: '3000', bandBps: 300, periodMinutes: 720, volume24h: '600000000', marketCap: '9000000000' },
  BTC: { usd: '60000', bandBps: 250, periodMinutes: 1080, volume24h: '30000000000', marketCap: '1180000000000' },
  MATIC: { usd: '0.5', bandBps: 400, periodMinutes: 540, volume24h: '200000000', marketCap: '4800000000' },
  EUR: { usd: '1.08', bandBps: 30, periodMinutes: 1440, volume24h: null, marketCap: null },
  GBP: { usd: '1.27', bandBps: 30, periodMinutes: 1440, volume24h: null, marketCap: null },
};
