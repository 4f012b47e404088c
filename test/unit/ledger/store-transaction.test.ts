import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { resetConfig } from '../../../shared/config/config.js';
import { InsufficientBalanceError } from '../../../shared/domain/errors.js';
import { creditEntry, debitEntry, DuplicateEntryError, EXTERNAL, FEES, MAIN, pocket } from '../../../shared/domain/ledger.js';
import { resetDb } from '../../../shared/store/client.js';
import { ExtraItemConditionError, postEntry, preparePost } from '../../../shared/store/ledger.js';
import { outboxEvent } from '../../../shared/store/outbox.js';

const ddb = mockClient(DynamoDBDocumentClient);
const noSleep = async () => undefined;

const cancelled = (codes: string[], items: Record<number, Record<string, { N: string }>> = {}) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code, i) => ({ Code, ...(items[i] ? { Item: items[i] } : {}) })),
  });

const debit = () => debitEntry({ account: MAIN, currency: 'USDTTRC20', amount: '5', type: 'withdrawal' });

beforeAll(() => {
  process.env.TABLE_NAME = 'unit-ledger';
  process.env.AWS_REGION = 'us-east-1';
  process.env.FEE_SHARDS = '4';
  resetConfig();
  resetDb();
});

beforeEach(() => ddb.reset());

describe('ledger transaction', () => {
  it('is one TransactWriteItems: entry, guarded balance update, posting, platform shard, outbox, extras', () => {
    const event = outboxEvent('t1', 'payment.completed', { amount: '99' });
    const extra = { Put: { TableName: 'unit-ledger', Item: { pk: 'TENANT#t1', sk: 'IDEM#k' }, ConditionExpression: 'attribute_not_exists(pk)' } };
    const prepared = preparePost(
      {
        tenantId: 't1',
        entry: {
          type: 'payment',
          currency: 'USDTTRC20',
          legs: [
            { from: pocket(MAIN, 'pending'), to: pocket(MAIN), amount: '99' },
            { from: pocket(MAIN, 'pending'), to: pocket(FEES), amount: '1' },
          ],
        },
        outbox: [event],
        extraItems: [extra],
      },
      { pickShard: () => 3 },
    );
    const items = prepared.items;
    expect(items).toHaveLength(6);
    expect(items[0]?.Put?.Item?.sk).toBe(`JOURNAL#${prepared.entry.id}`);
    expect(items[0]?.Put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    const balance = items[1]?.Update;
    expect(balance?.Key).toEqual({ pk: 'TENANT#t1', sk: 'BAL#main#USDTTRC20' });
    expect(balance?.ConditionExpression).toBe('pending >= :need_pending');
    expect(String(balance?.ExpressionAttributeValues?.[':need_pending'])).toBe('100');
    expect(String(balance?.ExpressionAttributeValues?.[':amount'])).toBe('99');
    expect(items[2]?.Put?.Item?.type).toBe('posting');
    expect(items[3]?.Update?.Key).toEqual({ pk: 'PLATFORM#platform:fees#USDTTRC20#3', sk: 'BALANCE' });
    expect(items[3]?.Update?.ConditionExpression).toBeUndefined();
    expect(items[4]?.Put?.Item?.pk).toBe(`OUTBOX#${event.eventId}`);
    expect(items[5]).toBe(extra);
  });

  it('retries a TransactionConflict with backoff and succeeds, never reporting insufficient balance', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['None', 'TransactionConflict', 'None']))
      .rejectsOnce(cancelled(['None', 'TransactionConflict', 'None']))
      .resolves({});
    const entry = await postEntry({ tenantId: 't1', entry: debit() }, { sleep: noSleep });
    expect(entry.lines).toHaveLength(2);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(3);
  });

  it('gives up after the attempts with the conflict itself, not InsufficientBalanceError', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'TransactionConflict', 'None']));
    const outcome = postEntry({ tenantId: 't1', entry: debit() }, { sleep: noSleep, maxAttempts: 3 });
    await expect(outcome).rejects.toBeInstanceOf(TransactionCanceledException);
    await expect(outcome).rejects.not.toBeInstanceOf(InsufficientBalanceError);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(3);
  });

  it('turns a failed balance condition into InsufficientBalanceError with what was available', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'ConditionalCheckFailed', 'None'], { 1: { amount: { N: '4.5' } } }));
    const error = await postEntry({ tenantId: 't1', entry: debit() }, { sleep: noSleep }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientBalanceError);
    expect((error as InsufficientBalanceError).details).toEqual({ account: 'main', currency: 'USDTTRC20', field: 'amount', requested: '5', available: '4.5' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('reports a duplicate entry id and a failed extra item as such', async () => {
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled(['ConditionalCheckFailed', 'None', 'None']));
    await expect(postEntry({ tenantId: 't1', entryId: 'deposit:1', entry: debit() })).rejects.toBeInstanceOf(DuplicateEntryError);

    ddb.reset();
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled(['None', 'None', 'None', 'ConditionalCheckFailed']));
    const extra = { ConditionCheck: { TableName: 'unit-ledger', Key: { pk: 'x', sk: 'y' }, ConditionExpression: 'attribute_exists(pk)' } };
    const error = await postEntry({
      tenantId: 't1',
      entry: creditEntry({ account: MAIN, currency: 'USDTTRC20', amount: '1', type: 'deposit' }),
      extraItems: [extra],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtraItemConditionError);
    expect((error as ExtraItemConditionError).extraIndexes).toEqual([0]);
  });

  it('writes amounts as exact DynamoDB Numbers', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await postEntry({
      tenantId: 't1',
      entry: { type: 'deposit', currency: 'DAIERC20', legs: [{ from: pocket(EXTERNAL), to: pocket(MAIN), amount: '123456789012.000000000000000001' }] },
    });
    const input = ddb.commandCalls(TransactWriteCommand)[0]?.args[0].input as TransactWriteCommandInput;
    const update = input.TransactItems?.[1]?.Update;
    expect(String(update?.ExpressionAttributeValues?.[':amount'])).toBe('123456789012.000000000000000001');
  });
});
