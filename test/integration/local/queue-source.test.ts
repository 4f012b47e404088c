import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { QUEUES } from '../../../infra/definition.js';
import type { QueueName } from '../../../infra/definition.js';
import type { Pollers, PollerWorker } from '../../../infra/local/pollers.js';
import { startPollers } from '../../../infra/local/pollers.js';
import { LOCAL_MAX_BATCHES, localBatchConcurrency } from '../../../infra/local/sources/queue.js';
import { startSqs } from '../../../infra/local/sqs.js';
import type { LocalSqs } from '../../../infra/local/sqs.js';

/**
 * The local stack's SQS source as Lambda's poller: a worker whose trigger sets `maxConcurrency` has batches
 * processed side by side (up to five, where Lambda starts), others one batch at a time; a backlog is received in
 * full batches, a lone message on its own. No test here waits for a time to pass.
 */
/** A queue per test: a long poll the pollers gave up when stopped may still take a message on the server. */
const USED: readonly QueueName[] = ['transfers', 'chain-results', 'wallet-transfers', 'scanner-wake'];
let sqs: LocalSqs;
let pollers: Pollers | undefined;

beforeAll(async () => {
  sqs = await startSqs({ queues: QUEUES.filter((q) => USED.includes(q.name)), workers: [] });
});

afterEach(async () => {
  await pollers?.stop();
  pollers = undefined;
});

afterAll(() => sqs?.close());

async function send(queue: QueueName, bodies: readonly string[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    const entries = bodies.slice(i, i + 10).map((body, j) => ({ Id: `m${j}`, MessageBody: body }));
    await sqs.client.send(new SendMessageBatchCommand({ QueueUrl: sqs.queueUrls[queue], Entries: entries }));
  }
}

function start(worker: PollerWorker): void {
  pollers = startPollers({ workers: [worker], sqsUrl: sqs.url, queueUrls: sqs.queueUrls });
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('local queue source', () => {
  it('runs min(5, maxConcurrency) batches at once, one at a time without it', () => {
    expect(LOCAL_MAX_BATCHES).toBe(5);
    expect(localBatchConcurrency({ kind: 'queue', queue: 'transfers', batchSize: 10, maxConcurrency: 50 })).toBe(5);
    expect(localBatchConcurrency({ kind: 'queue', queue: 'transfers', batchSize: 10, maxConcurrency: 2 })).toBe(2);
    expect(localBatchConcurrency({ kind: 'queue', queue: 'transfers', batchSize: 10 })).toBe(1);
    expect(localBatchConcurrency({ kind: 'stream' })).toBe(1);
  });

  it('processes batches side by side for a worker with maxConcurrency: three held batches are in flight together', async () => {
    let inFlight = 0;
    let most = 0;
    const handled: string[] = [];
    // Each invocation is held until three are in flight: a source that processed one batch at a time would never
    // get there (the fallback lets the test end, and fail, instead of hanging).
    let release: () => void = () => undefined;
    const three = new Promise<void>((resolve) => {
      release = resolve;
      setTimeout(resolve, 30_000).unref();
    });
    start({
      name: 'side-by-side',
      trigger: { kind: 'queue', queue: 'transfers', batchSize: 1, maxConcurrency: 3 },
      timeoutSeconds: 60,
      handler: (async (event: SQSEvent) => {
        most = Math.max(most, ++inFlight);
        if (inFlight === 3) release();
        await three;
        inFlight--;
        handled.push(...event.Records.map((r) => r.body));
      }) as never,
    });
    await send('transfers', ['a', 'b', 'c']);
    await until('three messages handled', () => handled.length === 3);
    expect(most).toBe(3);
    expect([...handled].sort()).toEqual(['a', 'b', 'c']);
  });

  it('processes one batch at a time without maxConcurrency', async () => {
    let inFlight = 0;
    let most = 0;
    const handled: string[] = [];
    start({
      name: 'one-at-a-time',
      trigger: { kind: 'queue', queue: 'chain-results', batchSize: 1 },
      timeoutSeconds: 60,
      handler: (async (event: SQSEvent) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        handled.push(...event.Records.map((r) => r.body));
      }) as never,
    });
    await send('chain-results', ['a', 'b', 'c', 'd']);
    await until('four messages handled', () => handled.length === 4);
    expect(most).toBe(1);
  });

  it('receives a backlog in full batches and a lone message on its own', async () => {
    const batches: string[][] = [];
    // 25 messages waiting before the source starts.
    await send(
      'wallet-transfers',
      Array.from({ length: 25 }, (_, i) => `m${i}`),
    );
    start({
      name: 'batches',
      trigger: { kind: 'queue', queue: 'wallet-transfers', batchSize: 10 },
      timeoutSeconds: 60,
      handler: ((event: SQSEvent) => {
        batches.push(event.Records.map((r) => r.body));
      }) as never,
    });
    await until('the backlog handled', () => batches.flat().length === 25);
    expect(batches.map((b) => b.length)).toEqual([10, 10, 5]);
    await send('wallet-transfers', ['alone']);
    await until('the lone message handled', () => batches.length === 4);
    expect(batches[3]).toEqual(['alone']);
  });

  it('wakes a scheduled worker from its wake queue between its runs, never while a scheduled run is going', async () => {
    const runs: string[] = [];
    let running = 0;
    let overlapped = false;
    let releaseFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
      setTimeout(resolve, 30_000).unref();
    });
    pollers = startPollers({
      workers: [
        {
          name: 'woken',
          trigger: { kind: 'schedule', everyMinutes: 60, wakeQueue: 'scanner-wake' },
          timeoutSeconds: 60,
          handler: (async (event?: Partial<SQSEvent>) => {
            overlapped ||= running > 0;
            running++;
            const what = event?.Records ? `woken: ${event.Records.map((r) => r.body).join(',')}` : 'scheduled';
            runs.push(what);
            // The first scheduled run is held until a wake message is waiting: the message must wait for it.
            if (what === 'scheduled' && runs.length === 1) await firstHeld;
            running--;
          }) as never,
        },
      ],
      sqsUrl: sqs.url,
      queueUrls: sqs.queueUrls,
      // The first scheduled run at once, the next one an hour later: only the queue can run it again.
      schedule: { firstRunDelayMs: 0 },
    });
    await until('the first scheduled run', () => runs.length === 1);
    await send('scanner-wake', ['a']);
    await new Promise((r) => setTimeout(r, 300));
    expect(runs).toEqual(['scheduled']);
    releaseFirst();
    await until('the woken run', () => runs.length === 2);
    expect(runs).toEqual(['scheduled', 'woken: a']);
    await send('scanner-wake', ['b', 'c']);
    await until('the second woken run', () => runs.length > 2 && runs.slice(2).join(',').split(/,|: /).includes('c'));
    // One run for both when they were waiting together, or one each.
    expect(['woken: b,c', 'woken: b,woken: c']).toContain(runs.slice(2).join(','));
    expect(overlapped).toBe(false);
  });
});
