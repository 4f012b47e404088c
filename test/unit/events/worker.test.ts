import { jest } from '@jest/globals';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import type { ScheduledRun } from '../../../shared/runtime/worker.js';
import { RetryLater, scheduledWorker, sqsWorker, streamBatchWorker, wakeableWorker } from '../../../shared/runtime/worker.js';

const sqsEvent = (...bodies: string[]): SQSEvent => ({ Records: bodies.map((body, i) => ({ messageId: `m${i + 1}`, body }) as SQSRecord) });
const streamEvent = (...sequences: string[]): DynamoDBStreamEvent => ({
  Records: sequences.map((s) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: s } }) as DynamoDBRecord),
});

describe('sqsWorker', () => {
  it('answers the messages whose handling threw by message id, in order, one after the other by default', async () => {
    const seen: string[] = [];
    const handler = sqsWorker('test', async (record) => {
      seen.push(record.body);
      if (record.body === 'bad') throw new Error('bad message');
      if (record.body === 'later') throw new RetryLater();
    });
    expect(await handler(sqsEvent('ok', 'bad', 'later', 'ok2'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }] });
    expect(seen).toEqual(['ok', 'bad', 'later', 'ok2']);
  });

  it('answers a batch that failed whole with every message instead of throwing', async () => {
    const handler = sqsWorker('test', () => Promise.reject(new Error('down')), { parallel: true });
    expect(await handler(sqsEvent('a', 'b'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
    expect(await handler(sqsEvent())).toEqual({ batchItemFailures: [] });
  });

  it('keeps concurrent invocations apart', async () => {
    const handler = sqsWorker('test', async (record) => {
      await new Promise((resolve) => setTimeout(resolve, record.body === 'slow' ? 20 : 1));
      if (record.body !== 'slow') throw new Error('fails');
    });
    const [a, b] = await Promise.all([handler(sqsEvent('slow')), handler(sqsEvent('fast'))]);
    expect([a, b]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [{ itemIdentifier: 'm1' }] }]);
  });
});

describe('streamBatchWorker', () => {
  it('hands the whole batch over once and answers the records it names by sequence number', async () => {
    const batches: string[][] = [];
    const handler = streamBatchWorker('test', async (records) => {
      batches.push(records.map((r) => r.dynamodb?.SequenceNumber ?? ''));
      return new Set(['s2']);
    });
    expect(await handler(streamEvent('s1', 's2', 's3'))).toEqual({ batchItemFailures: [{ itemIdentifier: 's2' }] });
    expect(batches).toEqual([['s1', 's2', 's3']]);
    const all = streamBatchWorker('test', async (records) => new Set(records.map((r) => r.dynamodb?.SequenceNumber ?? '')));
    expect(await all(streamEvent('s1', 's2'))).toEqual({ batchItemFailures: [{ itemIdentifier: 's1' }, { itemIdentifier: 's2' }] });
  });
});

describe('scheduledWorker', () => {
  /** The JSON lines the logger writes (stdout and stderr) while `act` runs. */
  async function logsOf(act: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
    const lines: string[] = [];
    const capture = (chunk: unknown): boolean => {
      lines.push(String(chunk));
      return true;
    };
    const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(capture), jest.spyOn(process.stderr, 'write').mockImplementation(capture)];
    try {
      await act();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    return lines
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  const context = (remaining: number): Context =>
    ({
      awsRequestId: 'request-1',
      functionName: 'gateway-monitor',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:gateway-monitor',
      memoryLimitInMB: '1024',
      getRemainingTimeInMillis: () => remaining,
    }) as Context;

  it('answers the run result, logs it once with the worker name and the request id, and passes the schedule on', async () => {
    const seen: ScheduledRun[] = [];
    const handler = scheduledWorker('monitor', async (scheduled, log) => {
      seen.push(scheduled);
      log.info('checked', { networks: 2 });
      return { stuck: 0 };
    });
    let answer: unknown;
    const logs = await logsOf(async () => {
      answer = await handler({ time: '2026-01-02T03:04:05Z' }, context(42_000));
    });
    expect(answer).toEqual({ stuck: 0 });
    expect(seen.map((s) => [s.time?.toISOString(), s.remainingMs(60_000)])).toEqual([['2026-01-02T03:04:05.000Z', 42_000]]);
    expect(logs.map((l) => [l.level, l.message, l.worker, l.function_request_id])).toEqual([
      ['INFO', 'checked', 'monitor', 'request-1'],
      ['INFO', 'scheduled run done', 'monitor', 'request-1'],
    ]);
    expect(logs[1]?.result).toEqual({ stuck: 0 });
  });

  it('logs an unexpected error once and throws it again, so the invocation fails', async () => {
    const failure = new TypeError('table unreachable');
    const handler = scheduledWorker('rates-refresher', () => Promise.reject(failure));
    let thrown: unknown;
    const logs = await logsOf(async () => {
      thrown = await handler({}, context(1_000)).catch((error: unknown) => error);
    });
    expect(thrown).toBe(failure);
    expect(logs.map((l) => [l.level, l.message, l.worker, l.error])).toEqual([
      ['ERROR', 'scheduled run failed', 'rates-refresher', 'TypeError: table unreachable'],
    ]);
  });

  it('runs when called directly: no schedule time (or one that does not parse), the remaining time its fallback', async () => {
    const seen: [Date | null, number][] = [];
    const handler = scheduledWorker('payment-expirer', async (scheduled) => {
      seen.push([scheduled.time, scheduled.remainingMs(60_000)]);
      return 1;
    });
    await logsOf(async () => {
      expect(await handler()).toBe(1);
      expect(await handler({ time: 'not a time' }, { getRemainingTimeInMillis: () => 5_000 })).toBe(1);
    });
    expect(seen).toEqual([
      [null, 60_000],
      [null, 5_000],
    ]);
  });

  it("gives a looping run its budget: the invocation's time left (a minute when called directly) less the margin, at least the minimum", async () => {
    const budgets: number[][] = [];
    const handler = scheduledWorker('chain-scanner', async (scheduled) => {
      budgets.push([scheduled.budgetMs(15_000, 1_000), scheduled.budgetMs(5_000)]);
      return 0;
    });
    await logsOf(async () => {
      await handler(undefined, { getRemainingTimeInMillis: () => 40_000 });
      await handler(undefined, { getRemainingTimeInMillis: () => 3_000 });
      await handler();
    });
    expect(budgets).toEqual([
      [25_000, 35_000],
      [1_000, 0],
      [45_000, 55_000],
    ]);
  });

  it('a wakeable worker runs the same on its schedule and when its queue wakes it, told the messages, and answers the queue a partial batch response', async () => {
    const seen: (readonly string[] | null)[] = [];
    const handler = wakeableWorker('chain-scanner', async (scheduled, woken) => {
      seen.push(woken);
      return scheduled.budgetMs(15_000);
    });
    let answers: unknown[] = [];
    const logs = await logsOf(async () => {
      answers = [await handler({ time: '2026-01-01T00:00:00Z' }, context(75_000)), await handler(sqsEvent('a', 'b'), context(75_000))];
    });
    expect(seen).toEqual([null, ['a', 'b']]);
    expect(answers).toEqual([60_000, { batchItemFailures: [] }]);
    expect(logs.map((l) => l.message)).toEqual(['scheduled run done', 'woken run done']);
  });

  it('a woken run that fails throws, so its messages come back', async () => {
    const handler = wakeableWorker('chain-scanner', () => Promise.reject(new Error('no RPC')));
    let thrown: unknown;
    const logs = await logsOf(async () => {
      thrown = await handler(sqsEvent('a'), context(75_000)).catch((error: unknown) => error);
    });
    expect(thrown).toEqual(new Error('no RPC'));
    expect(logs.map((l) => [l.level, l.message])).toEqual([['ERROR', 'woken run failed']]);
  });
});
