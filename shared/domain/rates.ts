import type { CurrencyDefinition } from './currencies.js';
import { findCurrency, isFiatCode } from './currencies.js';
import type { Decimal, Rounding } from './money.js';
import { div, gt, isPositive, isZero, lt, max, min, mul, sub, toFixed } from './money.js';

/**
 * Rates, pure. Every rate is a USD price per unit (`rates[code]` = how many USD one unit is worth); USD is 1
 * by definition, EUR and GBP have USD rates like any currency, so every conversion goes through USD:
 * `amount(from) * usd(from) / usd(to)`.
 *
 * 24 h statistics come from hourly candles (open/high/low/close per currency): the window is the last 24
 * hours to the hour (the candles whose hour starts at or after the hour 24 h ago), plus the current price.
 */

/** Fraction digits of a stored rate and of an exchange rate in answers. */
export const RATE_SCALE = 18;
/** Fraction digits of fiat amounts in answers. */
export const FIAT_PRECISION = 2;

/** USD price per unit, by currency code or fiat code. */
export type UsdRates = Readonly<Record<string, Decimal>>;

export interface RateStats {
  readonly usd: Decimal;
  readonly high24h: Decimal;
  readonly low24h: Decimal;
  /** usd - the price 24 h ago. */
  readonly change24h: Decimal;
  /** change / price 24 h ago * 100, 2 places. */
  readonly change24hPercent: Decimal;
  readonly volume24h: Decimal | null;
  readonly marketCap: Decimal | null;
}

export interface Candle {
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly close: Decimal;
}

/** An hour's candles: `hour` is `yyyy-mm-ddThh` (UTC). */
export interface HourCandles {
  readonly hour: string;
  readonly candles: Readonly<Record<string, Candle>>;
}

export const hourOf = (at: Date): string => at.toISOString().slice(0, 13);

/** The hour key 24 h before `at`: candles from this hour on form the window. */
export const windowStartHour = (at: Date): string => hourOf(new Date(at.getTime() - 24 * 3600 * 1000));

/** The candle after one more price. */
export function mergeCandle(candle: Candle | undefined, price: Decimal): Candle {
  if (!candle) return { open: price, high: price, low: price, close: price };
  return { open: candle.open, high: max(candle.high, price), low: min(candle.low, price), close: price };
}

/** 24 h statistics of one currency from the window's candles (any order) and the current price. */
export function stats24h(
  code: string,
  current: Decimal,
  windowCandles: readonly HourCandles[],
  market: { readonly volume24h?: Decimal | null; readonly marketCap?: Decimal | null } = {},
): RateStats {
  const ordered = [...windowCandles].sort((a, b) => (a.hour < b.hour ? -1 : a.hour > b.hour ? 1 : 0));
  let high = current;
  let low = current;
  let first: Decimal | undefined;
  for (const { candles } of ordered) {
    const c = candles[code];
    if (!c) continue;
    first ??= c.open;
    if (gt(c.high, high)) high = c.high;
    if (lt(c.low, low)) low = c.low;
  }
  const reference = first ?? current;
  const change = sub(current, reference);
  const percent = isZero(reference) ? '0' : div(mul(change, '100'), reference, 2, 'half-even');
  return {
    usd: current,
    high24h: high,
    low24h: low,
    change24h: change,
    change24hPercent: percent,
    volume24h: market.volume24h ?? null,
    marketCap: market.marketCap ?? null,
  };
}

/** The USD rate of a currency or fiat code; undefined when unknown. */
export function usdRate(code: string, rates: UsdRates): Decimal | undefined {
  if (code === 'USD') return '1';
  const rate = rates[code];
  return rate !== undefined && isPositive(rate) ? rate : undefined;
}

/** Precision of an amount in a currency or fiat code. */
export function precisionOf(code: string): number {
  if (isFiatCode(code)) return FIAT_PRECISION;
  const currency = findCurrency(code);
  if (!currency) throw new RangeError(`Unknown currency ${code}`);
  return currency.displayPrecision;
}

export class MissingRateError extends Error {
  readonly code: string;

  constructor(code: string) {
    super(`No rate for ${code}`);
    this.name = 'MissingRateError';
    this.code = code;
  }
}

/** How many `to` one `from` is worth (RATE_SCALE places, half-even). */
export function exchangeRate(from: string, to: string, rates: UsdRates): Decimal {
  const fromUsd = usdRate(from, rates);
  const toUsd = usdRate(to, rates);
  if (!fromUsd) throw new MissingRateError(from);
  if (!toUsd) throw new MissingRateError(to);
  return div(fromUsd, toUsd, RATE_SCALE, 'half-even');
}

/**
 * `amount` of `from` in `to`, through USD, rounded at `dp` (default: the target's precision) with the given
 * mode. Computed from the USD rates directly, not from a rounded exchange rate.
 */
export function convert(amount: Decimal, from: string, to: string, rates: UsdRates, rounding: Rounding, dp = precisionOf(to)): Decimal {
  const fromUsd = usdRate(from, rates);
  const toUsd = usdRate(to, rates);
  if (!fromUsd) throw new MissingRateError(from);
  if (!toUsd) throw new MissingRateError(to);
  return div(mul(amount, fromUsd), toUsd, dp, rounding);
}

/** A currency's amount in USD for display (2 places, the given rounding); null without a rate. */
export function usdValue(currency: CurrencyDefinition, amount: Decimal, rates: UsdRates, rounding: Rounding): Decimal | null {
  return fiatValue(currency, amount, 'USD', rates, rounding);
}

/**
 * A currency's amount in a fiat currency (2 places, the given rounding), from the USD rates directly; null
 * without a rate. Rounded `up`, it is the smallest price in that fiat whose conversion (`convert`, as a payment
 * is quoted) is not below `amount`: a merchant pricing at it meets a minimum of `amount`.
 */
export function fiatValue(currency: CurrencyDefinition, amount: Decimal, fiat: string, rates: UsdRates, rounding: Rounding): Decimal | null {
  const rate = usdRate(currency.code, rates);
  const fiatRate = usdRate(fiat, rates);
  return rate && fiatRate ? toFixed(div(mul(amount, rate), fiatRate, FIAT_PRECISION, rounding), FIAT_PRECISION, rounding) : null;
}

/** A rates snapshot as kept: each active currency's statistics and the fiat rates. */
export interface StoredRates {
  /** When the snapshot was taken (ISO 8601). */
  readonly at: string;
  readonly nextUpdate: string;
  readonly source: string;
  /** Per currency code. Disabled currencies are absent. */
  readonly rates: Readonly<Record<string, RateStats>>;
  /** USD per unit of EUR and GBP. */
  readonly fiat: Readonly<Record<string, Decimal>>;
}
