import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { RetryLater, sqsWorker, streamBatchWorker } from '../../../shared/runtime/worker.js';

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
