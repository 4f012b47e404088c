import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { resetConfig } from '../../../shared/config/config.js';
import { describeWave, traceCalls, waves } from '../../../shared/store/call-trace.js';
import { db, resetDb } from '../../../shared/store/client.js';

describe('traceCalls and waves', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    Object.assign(process.env, { TABLE_NAME: 'trace-test', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' });
    resetConfig();
    resetDb();
    // Every command answered at the build step after a macrotask (no network), so calls issued together overlap.
    db().middlewareStack.add(
      () => async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return { output: { $metadata: {} }, response: {} };
      },
      { step: 'build', name: 'fakeAnswers', override: true },
    );
  });
  afterEach(() => {
    resetDb();
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    resetConfig();
  });

  const get = () => db().send(new GetCommand({ TableName: 'trace-test', Key: { pk: 'a', sk: 'b' } }));
  const query = () => db().send(new QueryCommand({ TableName: 'trace-test', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'a' } }));
  const update = () =>
    db().send(
      new UpdateCommand({ TableName: 'trace-test', Key: { pk: 'a', sk: 'b' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }),
    );

  it('counts calls one after another as round trips, and calls issued together as one', async () => {
    const trace = traceCalls();
    const started = get();
    expect(trace.pending()).toBe(1);
    await started;
    expect(trace.pending()).toBe(0);
    await update();
    const point = trace.mark();
    await Promise.all([get(), query(), query()]);
    await update();
    const calls = trace.calls();
    expect(calls.map((c) => c.command)).toEqual(['GetItemCommand', 'UpdateItemCommand', 'GetItemCommand', 'QueryCommand', 'QueryCommand', 'UpdateItemCommand']);
    expect(calls[0]?.input).toMatchObject({ Key: { pk: 'a', sk: 'b' } });
    expect(waves(calls).map(describeWave)).toEqual(['GetItem', 'UpdateItem', 'GetItem + 2 x Query', 'UpdateItem']);
    expect(waves(calls.filter((c) => c.start < point))).toHaveLength(2);
    trace.reset();
    expect(trace.calls()).toEqual([]);
    trace.stop();
    await get();
    expect(trace.calls()).toEqual([]);
  });

  it('a call started after another answered is a round trip later, even while a third is pending', () => {
    const call = (command: string, start: number, end: number) => ({ command, input: {}, start, end });
    // A from 1 to 4 and B from 2 to 6 together; C from 5 to 7 starts once A answered (it may need A's answer).
    expect(waves([call('A', 1, 4), call('B', 2, 6), call('C', 5, 7)]).map(describeWave)).toEqual(['A + B', 'C']);
    expect(waves([call('A', 1, 2), call('B', 3, 4)])).toHaveLength(2);
    expect(waves([])).toEqual([]);
  });
});
