import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type * as RatesRefresher from '../../../functions/rates-refresher/handler.js';
import { resetConfig } from '../../../shared/config/config.js';
import { cmp } from '../../../shared/domain/money.js';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { getCandles, getCurrentRates } from '../../../shared/store/rates.js';
import { ratesRuntime } from '../../../shared/runtime/rates.js';
import { getRate } from '../../../shared/usecases/rates/get-rate.js';
import { listRates } from '../../../shared/usecases/rates/list-rates.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { CHAIN_NETWORKS, serving } from '../../support/fakes/payments.js';

/** The rates-refresher worker (reference source) against DynamoDB Local, over a simulated day. */
let table: TestTable;
/** The Lambda as deployed: it builds its ports from the configuration when its module loads. */
let handler: typeof RatesRefresher.handler;

beforeAll(async () => {
  table = await startTestTable();
  process.env.RATES_SOURCE = 'reference';
  process.env.DISABLED_CURRENCIES = 'WETH';
  resetConfig();
  ({ handler } = await import('../../../functions/rates-refresher/handler.js'));
});

afterAll(async () => {
  delete process.env.DISABLED_CURRENCIES;
  resetConfig();
  await table.stop();
});

describe('rates-refresher', () => {
  it('stores the current snapshot and hour candles; 24 h statistics move; disabled currencies are left out', async () => {
    const start = Date.parse('2030-06-01T00:00:00Z');
    let last = { at: '', currencies: 0, source: '' };
    // Every 45 minutes for 26 hours: the window holds 24-25 hour candles.
    for (let minute = 0; minute <= 26 * 60; minute += 45) {
      last = await handler({ time: new Date(start + minute * 60_000).toISOString() });
    }
    expect(last.source).toBe('reference');
    const stored = await getCurrentRates();
    expect(stored?.at).toBe(last.at);
    expect(Object.keys(stored?.rates ?? {})).not.toContain('WETH');
    expect(Object.keys(stored?.rates ?? {})).toHaveLength(last.currencies);
    const btc = stored?.rates.BTC;
    expect(btc && cmp(btc.high24h, btc.low24h)).toBe(1);
    expect(stored?.fiat.GBP).toBeDefined();

    const candles = await getCandles('2030-06-01T00', '2030-06-02T23');
    expect(candles.length).toBeGreaterThanOrEqual(26);
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.rateCandle('2030-06-01T00') }));
    expect(Number(String(Item?.ttl))).toBeGreaterThan(start / 1000);

    const now = new Date(Date.parse(last.at) + 10_000);
    const listed = await listRates({ now }, { rates: ratesRuntime(), served: serving(CHAIN_NETWORKS) });
    expect(listed.last_updated).toBe(last.at);
    expect(listed.rates.WETH).toBeUndefined();
    const single = await getRate({ currency: 'BTC', now }, ratesRuntime());
    expect(single.high_24h).toBe(btc?.high24h);
    expect(single.volume_24h).not.toBe('0');
  });
});
