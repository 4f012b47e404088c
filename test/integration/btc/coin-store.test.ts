import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../../shared/store/client.js';
import { dynamoHotCoins } from '../../../shared/store/btc-coins.js';
import { keys } from '../../../shared/store/keys.js';
import type { HotCoin } from '../../../shared/usecases/coins/ports.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';

/**
 * The hot wallet's coins (shared/store/btc-coins.ts) on DynamoDB Local: recording is idempotent, a reservation is
 * exclusive and all-or-nothing (one TransactWriteItems), and a batch's coins are spent or released as a whole.
 */
let table: TestTable;
beforeAll(async () => {
  table = await startTestTable('btc-coins-test');
});
afterAll(async () => {
  await table.stop();
});

let n = 0;
/** A coin of a network of its own per test, so tests never see each other's coins. */
function coin(network: string, value: bigint, source = 'topup'): HotCoin {
  n += 1;
  return { network, txid: n.toString(16).padStart(64, 'a'), vout: n % 3, value, tag: 'cd'.repeat(32), source };
}
const ref = (c: HotCoin) => ({ network: c.network, txid: c.txid, vout: c.vout });
const stored = async (c: HotCoin) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.hotCoin(c.network, c.txid, c.vout), ConsistentRead: true }))).Item;

describe('hot wallet coins on DynamoDB', () => {
  it('records a coin once: adding it again leaves it as it is, whatever its state', async () => {
    const a = coin('BTC-add', 50_000n, 'payment:t1:p1');
    await dynamoHotCoins.add([a]);
    await dynamoHotCoins.add([a, a]);
    expect(await dynamoHotCoins.available('BTC-add', 10)).toEqual([{ ...a, state: 'available' }]);
    expect(await dynamoHotCoins.reserve([ref(a)], 'batch-1')).toBe(true);
    // A retried credit must not make a reserved coin available again.
    await dynamoHotCoins.add([{ ...a, value: 1n, source: 'topup' }]);
    expect(await stored(a)).toMatchObject({ state: 'reserved', spentBy: 'batch-1', value: '50000', source: 'payment:t1:p1' });
    expect(await dynamoHotCoins.available('BTC-add', 10)).toEqual([]);
  });

  it('lists available coins largest first, at most the limit asked', async () => {
    const coins = [coin('BTC-list', 700n), coin('BTC-list', 100_000_000n), coin('BTC-list', 9_999n)];
    await dynamoHotCoins.add(coins);
    const listed = await dynamoHotCoins.available('BTC-list', 2);
    expect(listed.map((c) => c.value)).toEqual([100_000_000n, 9_999n]);
    expect(await dynamoHotCoins.available('BTC-other', 5)).toEqual([]);
  });

  it('two batches racing for one coin: exactly one reserves it, the other reserves nothing at all', async () => {
    const shared = coin('BTC-race', 10_000n);
    const onlyA = coin('BTC-race', 20_000n);
    const onlyB = coin('BTC-race', 30_000n);
    await dynamoHotCoins.add([shared, onlyA, onlyB]);
    const results = await Promise.all([dynamoHotCoins.reserve([ref(onlyA), ref(shared)], 'A'), dynamoHotCoins.reserve([ref(onlyB), ref(shared)], 'B')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? 'A' : 'B';
    const loserOwn = results[0] ? onlyB : onlyA;
    expect(await stored(shared)).toMatchObject({ state: 'reserved', spentBy: winner });
    // All or nothing: the loser's other coin is untouched and still listed.
    expect(await stored(loserOwn)).toMatchObject({ state: 'available' });
    expect((await stored(loserOwn))?.spentBy).toBeUndefined();
    expect((await dynamoHotCoins.available('BTC-race', 10)).map((c) => c.value)).toEqual([loserOwn.value]);
    expect((await dynamoHotCoins.ofBatch('BTC-race', winner)).map((c) => c.value).sort()).toEqual([shared.value, (results[0] ? onlyA : onlyB).value].sort());
    expect(await dynamoHotCoins.ofBatch('BTC-race', winner === 'A' ? 'B' : 'A')).toEqual([]);
  });

  it('a retried reservation by the same batch succeeds; another batch cannot take its coins', async () => {
    const c = coin('BTC-retry', 5_000n);
    await dynamoHotCoins.add([c]);
    expect(await dynamoHotCoins.reserve([ref(c)], 'batch-x')).toBe(true);
    expect(await dynamoHotCoins.reserve([ref(c)], 'batch-x')).toBe(true);
    expect(await dynamoHotCoins.reserve([ref(c)], 'batch-y')).toBe(false);
    // An unknown coin is not available either.
    expect(await dynamoHotCoins.reserve([{ network: 'BTC-retry', txid: 'f'.repeat(64), vout: 0 }], 'batch-z')).toBe(false);
  });

  it('release makes a batch coins available again; markSpent keeps them out for good', async () => {
    const [a, b] = [coin('BTC-end', 1_000n), coin('BTC-end', 2_000n)];
    await dynamoHotCoins.add([a, b]);
    expect(await dynamoHotCoins.reserve([ref(a), ref(b)], 'first')).toBe(true);
    // Another batch's release touches nothing of this one.
    await dynamoHotCoins.release([ref(a), ref(b)], 'other');
    expect(await dynamoHotCoins.available('BTC-end', 10)).toEqual([]);
    await dynamoHotCoins.release([ref(a), ref(b)], 'first');
    expect((await dynamoHotCoins.available('BTC-end', 10)).map((c) => c.value)).toEqual([2_000n, 1_000n]);
    expect(await dynamoHotCoins.ofBatch('BTC-end', 'first')).toEqual([]);

    expect(await dynamoHotCoins.reserve([ref(a), ref(b)], 'second')).toBe(true);
    await dynamoHotCoins.markSpent([ref(a), ref(b)], 'second');
    await dynamoHotCoins.markSpent([ref(a), ref(b)], 'second');
    expect((await dynamoHotCoins.ofBatch('BTC-end', 'second')).map((c) => c.state)).toEqual(['spent', 'spent']);
    // A spent coin is never released nor reserved again.
    await dynamoHotCoins.release([ref(a)], 'second');
    expect(await stored(a)).toMatchObject({ state: 'spent', spentBy: 'second' });
    expect(await dynamoHotCoins.reserve([ref(a)], 'third')).toBe(false);
    expect(await dynamoHotCoins.available('BTC-end', 10)).toEqual([]);
  });

  it('refuses a malformed coin before writing anything', async () => {
    await expect(dynamoHotCoins.add([{ ...coin('BTC-bad', 1n), tag: 'xyz' }])).rejects.toThrow(/tag/);
    await expect(dynamoHotCoins.add([{ ...coin('BTC-bad', 0n) }])).rejects.toThrow(/positive/);
    expect(await dynamoHotCoins.available('BTC-bad', 10)).toEqual([]);
  });
});
