import { randomUUID } from 'node:crypto';
import { InsufficientBalanceError } from '../../../shared/domain/errors.js';
import { creditEntry, debitEntry, MAIN } from '../../../shared/domain/ledger.js';
import { add, sum } from '../../../shared/domain/money.js';
import { getBalance, listAllEntries, postEntry } from '../../../shared/store/ledger.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';

let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
});

afterAll(async () => {
  await table.stop();
});

describe('ledger under concurrency (DynamoDB Local)', () => {
  it('100 concurrent debits against a balance covering 10: exactly 10 succeed, the balance ends at zero', async () => {
    const tenantId = randomUUID();
    const each = '0.1';
    await postEntry({ tenantId, entry: creditEntry({ account: MAIN, currency: 'USDTTRC20', amount: '1', type: 'adjustment', reason: 'seed' }) });

    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, () =>
        postEntry({ tenantId, entry: debitEntry({ account: MAIN, currency: 'USDTTRC20', amount: each, type: 'adjustment', reason: 'drain' }) }),
      ),
    );
    const succeeded = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    const unexpected = refused.filter((o) => !(o.reason instanceof InsufficientBalanceError));
    expect(unexpected.map((o) => String(o.reason))).toEqual([]);
    expect(succeeded).toHaveLength(10);
    expect(refused).toHaveLength(90);

    const balance = await getBalance(tenantId, MAIN, 'USDTTRC20');
    expect(balance).toEqual({ amount: '0', pending: '0', locked: '0' });

    const entries = await listAllEntries(tenantId);
    expect(entries).toHaveLength(11);
    const mainDeltas = entries.flatMap((e) => e.lines.filter((l) => l.account === MAIN && l.field === 'amount').map((l) => l.delta));
    expect(sum(mainDeltas)).toBe(balance.amount);
    // Every entry is balanced: its lines sum to zero.
    for (const e of entries) expect(sum(e.lines.map((l) => l.delta))).toBe('0');
    expect(add(balance.amount, '0')).toBe('0');
  });
});
