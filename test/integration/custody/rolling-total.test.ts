import { randomUUID } from 'node:crypto';
import { dynamoCustodyRollingTotals } from '../../../shared/store/custody-rolling.js';
import { asTransactItem, TransactionConditionError, transactWrite } from '../../../shared/store/transact.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';

/**
 * A custody account's rolling 24-hour total on DynamoDB Local (shared/store/custody-rolling.ts): how long a
 * withdrawal counts, and the conditions that refuse an add when a concurrent one moved the total after the read.
 */
let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
});

afterAll(async () => {
  await table?.stop();
});

describe("an account's rolling total as stored (ten-minute parts)", () => {
  const at = (iso: string) => new Date(iso);
  const total = async (accountId: string, now: string) => (await dynamoCustodyRollingTotals.read('rolling-tenant', accountId, at(now))).total;
  const add = async (accountId: string, now: string, amount: string, room: string | null) => {
    const read = await dynamoCustodyRollingTotals.read('rolling-tenant', accountId, at(now));
    await transactWrite(read.add(amount, room).map(asTransactItem));
  };

  it('counts a withdrawal for 24 hours and at most ten minutes more', async () => {
    const accountId = randomUUID();
    await add(accountId, '2030-01-01T10:03:00Z', '60', null);
    await add(accountId, '2030-01-01T18:00:00Z', '15', null);
    expect(await total(accountId, '2030-01-01T10:03:00Z')).toBe('60');
    expect(await total(accountId, '2030-01-02T10:03:00Z')).toBe('75');
    expect(await total(accountId, '2030-01-02T10:09:59Z')).toBe('75');
    expect(await total(accountId, '2030-01-02T10:10:00Z')).toBe('15');
    expect(await total(accountId, '2030-01-03T18:10:00Z')).toBe('0');
  });

  it('refuses an add whose room another withdrawal took, or whose neighbouring part changed, after the read', async () => {
    const accountId = randomUUID();
    const first = await dynamoCustodyRollingTotals.read('rolling-tenant', accountId, at('2030-01-01T10:10:05Z'));
    // A concurrent withdrawal in the same ten minutes takes 60 of a threshold of 100: 40 more would make 100, 50 not.
    await add(accountId, '2030-01-01T10:10:06Z', '60', '40');
    await expect(transactWrite(first.add('50', '50').map(asTransactItem))).rejects.toBeInstanceOf(TransactionConditionError);
    await transactWrite(first.add('40', '60').map(asTransactItem));
    expect(await total(accountId, '2030-01-01T10:10:07Z')).toBe('100');

    // One whose clock still read the ten minutes before writes there: a withdrawal that read before it is refused.
    const other = randomUUID();
    const late = await dynamoCustodyRollingTotals.read('rolling-tenant', other, at('2030-01-01T10:10:01Z'));
    await add(other, '2030-01-01T10:09:59Z', '10', null);
    await expect(transactWrite(late.add('95', '5').map(asTransactItem))).rejects.toBeInstanceOf(TransactionConditionError);
    expect(await total(other, '2030-01-01T10:10:02Z')).toBe('10');
  });
});
