import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { billWrites, unitsOfWrite } from '../../../bench/write-billing.js';
import type { WriteBilling } from '../../../bench/write-billing.js';
import { db, tableName } from '../../../shared/store/client.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';

/**
 * The cost bench's write billing (bench/write-billing.ts): the units of each written item from its images, on the
 * rules of DynamoDB's on-demand pricing, and the meter that reads the images around real writes on DynamoDB Local.
 */
let table: TestTable;
let billing: WriteBilling;

beforeAll(async () => {
  table = await startTestTable('write-billing');
});
afterAll(async () => {
  billing?.stop();
  await table?.stop();
});

const item = (sk: string, bytes: number, extra: Record<string, unknown> = {}) => ({ pk: 'BILL', sk, pad: 'x'.repeat(bytes), ...extra });

describe('the units of one written item', () => {
  const put = { kind: 'Put', transactional: false } as const;
  it('a started KB of the table, twice in a transaction, and a KB for each index the item is in', () => {
    expect(unitsOfWrite(put, undefined, item('A', 100))).toEqual({ table: 1, indexes: 0 });
    expect(unitsOfWrite(put, undefined, item('A', 1500))).toEqual({ table: 2, indexes: 0 });
    expect(unitsOfWrite({ kind: 'Put', transactional: true }, undefined, item('A', 100, { gsi1pk: 'a', gsi1sk: 'b' }))).toEqual({ table: 2, indexes: 1 });
    expect(unitsOfWrite(put, undefined, item('A', 100, { gsi1pk: 'a', gsi1sk: 'b', gsi2pk: 'c', gsi2sk: 'd', gsi3pk: 'e' }))).toEqual({ table: 1, indexes: 2 });
  });

  it('the larger image of an update, two index writes when its index key moves, one when it leaves, none when nothing changed', () => {
    const update = { kind: 'Update', transactional: false } as const;
    const before = item('A', 900, { gsi3pk: 'q', gsi3sk: '1' });
    expect(unitsOfWrite(update, before, item('A', 10, { gsi3pk: 'q', gsi3sk: '1' }))).toEqual({ table: 1, indexes: 1 });
    expect(unitsOfWrite(update, before, item('A', 900, { gsi3pk: 'q', gsi3sk: '2' }))).toEqual({ table: 1, indexes: 2 });
    expect(unitsOfWrite(update, before, item('A', 1100))).toEqual({ table: 2, indexes: 1 });
    expect(unitsOfWrite(update, before, before)).toEqual({ table: 1, indexes: 0 });
    expect(unitsOfWrite({ kind: 'ConditionCheck', transactional: true }, before, before)).toEqual({ table: 2, indexes: 0 });
  });
});

describe('billing writes on DynamoDB Local', () => {
  it('counts each item of a transaction, and a refused conditional write', async () => {
    billing = billWrites(db());
    const TableName = tableName();
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: item('PAYMENT#1', 300, { gsi3pk: 'open', gsi3sk: '1' }) } },
          { Put: { TableName, Item: item('TXN#1', 300, { gsi1pk: 't', gsi1sk: '1' }) } },
          { Put: { TableName, Item: item('OUTBOX', 1200) } },
        ],
      }),
    );
    await db().send(new UpdateCommand({ TableName, Key: { pk: 'BILL', sk: 'PAYMENT#1' }, UpdateExpression: 'REMOVE gsi3pk, gsi3sk' }));
    await expect(db().send(new PutCommand({ TableName, Item: item('TXN#1', 10), ConditionExpression: 'attribute_not_exists(pk)' }))).rejects.toThrow();
    await db().send(new DeleteCommand({ TableName, Key: { pk: 'BILL', sk: 'TXN#1' } }));
    const totals = billing.totals();
    // Transaction: 2 + 2 + 2 x 2 (1,200 bytes); indexes 1 + 1. Update: 1, leaving gsi3: 1. Refused put: 1. Delete: 1, leaving gsi1: 1.
    expect(totals).toEqual({
      table: 8 + 1 + 1 + 1,
      indexes: 2 + 1 + 1,
      byKind: { PAYMENT: { table: 3, indexes: 2 }, TXN: { table: 4, indexes: 2 }, OUTBOX: { table: 4, indexes: 0 } },
    });
  });
});
