import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { resetConfig } from '../../../shared/config/config.js';
import { capacityTotals, consumedUnits, db, meterCapacity, recordCapacity, resetDb } from '../../../shared/store/client.js';

describe('capacity meter summing', () => {
  it('reads CapacityUnits of a single object as units of the operation kind', () => {
    expect(consumedUnits({ TableName: 't', CapacityUnits: 0.5 }, 'read')).toEqual({ read: 0.5, write: 0, reported: true });
    expect(consumedUnits({ TableName: 't', CapacityUnits: 5 }, 'write')).toEqual({ read: 0, write: 5, reported: true });
  });

  it('sums arrays (batch and transaction answers)', () => {
    expect(
      consumedUnits(
        [
          { TableName: 'a', CapacityUnits: 6 },
          { TableName: 'b', CapacityUnits: 2 },
        ],
        'write',
      ),
    ).toEqual({ read: 0, write: 8, reported: true });
    expect(
      consumedUnits(
        [
          { TableName: 'a', CapacityUnits: 1.5 },
          { TableName: 'b', CapacityUnits: 0.5 },
        ],
        'read',
      ),
    ).toEqual({ read: 2, write: 0, reported: true });
  });

  it('prefers ReadCapacityUnits / WriteCapacityUnits to CapacityUnits, never both', () => {
    expect(consumedUnits({ CapacityUnits: 3, ReadCapacityUnits: 1, WriteCapacityUnits: 2 }, 'read')).toEqual({ read: 1, write: 2, reported: true });
    expect(consumedUnits([{ CapacityUnits: 4, WriteCapacityUnits: 4 }, { CapacityUnits: 1 }], 'write')).toEqual({ read: 0, write: 5, reported: true });
  });

  it('counts a missing ConsumedCapacity as zero units, unreported', () => {
    expect(consumedUnits(undefined, 'read')).toEqual({ read: 0, write: 0, reported: false });
    expect(consumedUnits(null, 'write')).toEqual({ read: 0, write: 0, reported: false });
    expect(consumedUnits([], 'write')).toEqual({ read: 0, write: 0, reported: false });
    expect(consumedUnits([{ TableName: 't' }], 'write')).toEqual({ read: 0, write: 0, reported: false });
  });

  it('totals per command and overall, counting unreported calls and ignoring unmetered commands', () => {
    const state = { byCommand: new Map() };
    recordCapacity(state, 'GetItemCommand', { CapacityUnits: 0.5 });
    recordCapacity(state, 'GetItemCommand', { CapacityUnits: 1 });
    recordCapacity(state, 'TransactWriteItemsCommand', [{ CapacityUnits: 6 }]);
    recordCapacity(state, 'PutItemCommand', undefined);
    recordCapacity(state, 'DescribeTableCommand', { CapacityUnits: 100 });
    const totals = capacityTotals(state);
    expect(totals).toMatchObject({ read: 1.5, write: 6, calls: 4, unreported: 1 });
    expect(totals.byCommand.GetItemCommand).toEqual({ calls: 2, unreported: 0, read: 1.5, write: 0 });
    expect(totals.byCommand.PutItemCommand).toEqual({ calls: 1, unreported: 1, read: 0, write: 0 });
    expect(totals.byCommand.DescribeTableCommand).toBeUndefined();
  });
});

describe('meterCapacity on the document client', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    Object.assign(process.env, { TABLE_NAME: 'meter-test', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' });
    resetConfig();
    resetDb();
  });
  afterEach(() => {
    resetDb();
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    resetConfig();
  });

  /** Answers every command at the build step (no network), recording the input the meter sent. */
  function fakeAnswers(answers: Record<string, unknown>): { inputs: Record<string, unknown>[] } {
    const seen = { inputs: [] as Record<string, unknown>[] };
    db().middlewareStack.add(
      (_next, context) => async (args) => {
        seen.inputs.push(args.input as Record<string, unknown>);
        return { output: { $metadata: {}, ConsumedCapacity: answers[context.commandName ?? ''] }, response: {} };
      },
      { step: 'build', name: 'fakeAnswers', override: true },
    );
    return seen;
  }

  it('asks for TOTAL and sums single and array answers while on; adds nothing once stopped', async () => {
    const seen = fakeAnswers({
      GetItemCommand: { TableName: 'meter-test', CapacityUnits: 0.5 },
      TransactWriteItemsCommand: [{ TableName: 'meter-test', CapacityUnits: 8 }],
    });
    const meter = meterCapacity();
    await db().send(new GetCommand({ TableName: 'meter-test', Key: { pk: 'a', sk: 'b' } }));
    await db().send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 'meter-test', Item: { pk: 'a', sk: 'b' } } }] }));
    expect(seen.inputs.map((i) => i.ReturnConsumedCapacity)).toEqual(['TOTAL', 'TOTAL']);
    expect(meter.totals()).toMatchObject({ read: 0.5, write: 8, calls: 2, unreported: 0 });
    meter.reset();
    expect(meter.totals()).toMatchObject({ read: 0, write: 0, calls: 0 });
    meter.stop();
    await db().send(new GetCommand({ TableName: 'meter-test', Key: { pk: 'a', sk: 'b' } }));
    expect(seen.inputs[2]?.ReturnConsumedCapacity).toBeUndefined();
    expect(meter.totals().calls).toBe(0);
  });

  it('meters a client built after resetDb()', async () => {
    const meter = meterCapacity();
    resetDb();
    fakeAnswers({ GetItemCommand: { CapacityUnits: 1 } });
    await db().send(new GetCommand({ TableName: 'meter-test', Key: { pk: 'a', sk: 'b' } }));
    expect(meter.totals()).toMatchObject({ read: 1, calls: 1 });
    meter.stop();
  });
});
