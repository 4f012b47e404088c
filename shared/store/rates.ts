import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Decimal } from '../domain/money.js';
import type { Candle, HourCandles, RateStats, StoredRates } from '../domain/rates.js';
import type { RatesStore } from '../usecases/rates/ports.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';

/**
 * Rates on the single table: the current snapshot (`RATES / CURRENT`, with each currency's 24 h
 * statistics, written by the rates-refresher) and one candle item per hour (`RATES / HOUR#<hour>`, kept
 * 26 hours by TTL) from which the statistics are computed. Values are decimal strings (exact).
 */

export type { StoredRates } from '../domain/rates.js';

export const CANDLE_TTL_SECONDS = 26 * 3600;

type Stored = Record<string, unknown>;

const text = (v: unknown): Decimal | null => (typeof v === 'string' ? v : null);

function toStats(value: Stored): RateStats {
  return {
    usd: value.usd as Decimal,
    high24h: value.high_24h as Decimal,
    low24h: value.low_24h as Decimal,
    change24h: value.change_24h as Decimal,
    change24hPercent: value.change_24h_percent as Decimal,
    volume24h: text(value.volume_24h),
    marketCap: text(value.market_cap),
  };
}

/** The snapshot in its item (`keys.ratesCurrent`), wherever it was read. */
export function ratesFromItem(item: Stored): StoredRates {
  const rates = item.rates as Record<string, Stored>;
  return {
    at: item.at as string,
    nextUpdate: item.next_update as string,
    source: item.source as string,
    rates: Object.fromEntries(Object.entries(rates).map(([code, v]) => [code, toStats(v)])),
    fiat: item.fiat as Record<string, Decimal>,
  };
}

export async function getCurrentRates(): Promise<StoredRates | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.ratesCurrent }));
  return Item ? ratesFromItem(Item) : null;
}

export async function putCurrentRates(snapshot: StoredRates): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.ratesCurrent,
        type: 'rates',
        at: snapshot.at,
        next_update: snapshot.nextUpdate,
        source: snapshot.source,
        rates: Object.fromEntries(
          Object.entries(snapshot.rates).map(([code, s]) => [
            code,
            {
              usd: s.usd,
              high_24h: s.high24h,
              low_24h: s.low24h,
              change_24h: s.change24h,
              change_24h_percent: s.change24hPercent,
              volume_24h: s.volume24h,
              market_cap: s.marketCap,
            },
          ]),
        ),
        fiat: snapshot.fiat,
      },
    }),
  );
}

/** Hour candles from `fromHour` to `toHour` inclusive (`yyyy-mm-ddThh`). */
export async function getCandles(fromHour: string, toHour: string): Promise<HourCandles[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.rateCandlePartition, ':from': keys.rateCandleSk(fromHour), ':to': keys.rateCandleSk(toHour) },
    ConsistentRead: true,
  });
  return items.map((item) => ({ hour: item.hour as string, candles: item.candles as Record<string, Candle> }));
}

export async function putCandles(candles: HourCandles, nowSeconds: number): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.rateCandle(candles.hour), type: 'rate_candles', hour: candles.hour, candles: candles.candles, ttl: nowSeconds + CANDLE_TTL_SECONDS },
    }),
  );
}

/** The DynamoDB rates store as the use cases' port. */
export const dynamoRatesStore: RatesStore = { current: getCurrentRates, putCurrent: putCurrentRates, candles: getCandles, putCandles };
