import { inflateRawSync } from 'node:zlib';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { jest } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { parse } from 'lossless-json';
import { queueUrlEnv } from '../../../infra/definition.js';
import { handler } from '../../../functions/event-router/handler.js';
import { messageBody } from '../../../shared/store/outbox.js';
import { queuesFor } from '../../../shared/domain/events.js';
import { changeMessageBody } from '../../../shared/domain/webhooks.js';
import { resetConfig } from '../../../shared/config/config.js';
import { resetSqs } from '../../../shared/queue/sqs.js';
import { outboxChangeItem, outboxEvent, outboxEventFromItem, outboxEventsOfItem, outboxPutItem } from '../../../shared/store/outbox.js';
import type { OutboxEvent } from '../../../shared/store/outbox.js';

const sqs = mockClient(SQSClient);

beforeAll(() => {
  process.env.TABLE_NAME = 'unit-outbox';
  process.env.AWS_REGION = 'us-east-1';
  process.env[queueUrlEnv('webhook-delivery')] = 'http://sqs.local/000000000000/webhook-delivery';
  resetConfig();
  resetSqs();
});

beforeEach(() => {
  sqs.reset();
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
});

afterEach(() => jest.restoreAllMocks());

function record(event: OutboxEvent, sequence: string): DynamoDBRecord {
  const item = outboxPutItem(event).Put?.Item ?? {};
  return {
    eventName: 'INSERT',
    dynamodb: { SequenceNumber: sequence, NewImage: marshall(item) as unknown as Record<string, never> },
  } as DynamoDBRecord;
}

describe('outbox items', () => {
  it('hold the events of one change, deflated, named by the first (keys.outbox), with a ttl', () => {
    const event = outboxEvent('t1', 'payment.completed', { amount: '25.10', confirmations: 12 }, { now: new Date('2030-01-01T00:00:00Z'), eventId: 'e1' });
    const put = outboxPutItem(event).Put;
    expect(put?.Item).toEqual({
      pk: 'OUTBOX#e1',
      sk: 'OUTBOX',
      type: 'outbox',
      events: expect.any(Uint8Array),
      ttl: Date.parse('2030-01-01T00:00:00Z') / 1000 + 3 * 24 * 3600,
    });
    expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    // Packed (shared/store/packed.ts): format 0, then the raw DEFLATE of the JSON list of the events as their message
    // bodies spell them.
    const events = put?.Item?.events as Uint8Array;
    expect(events[0]).toBe(0);
    expect(JSON.parse(inflateRawSync(events.subarray(1)).toString('utf8'))).toEqual([
      { event_id: 'e1', tenant_id: 't1', type: 'payment.completed', occurred_at: '2030-01-01T00:00:00.000Z', payload: { amount: '25.10', confirmations: 12 } },
    ]);
    expect(outboxEventsOfItem(put?.Item ?? {}).map(messageBody)).toEqual([messageBody(event)]);
  });

  it('of a change with several events: each keeps its id and reads back exactly, numbers as written', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const events = [
      outboxEvent('t1', 'deposit_received', { amount: '1.50', n: 3 }, { now, eventId: 'payment:p1:deposit:d1:2' }),
      outboxEvent(
        't1',
        'payment_status_update',
        { status: 'confirming', big: new NumberValue('12345678901234567890') },
        { now, eventId: 'payment:p1:status:2:confirming' },
      ),
      outboxEvent('t1', 'payment.processing', { status: 'confirming' }, { now, eventId: 'payment:p1:payment.processing:2' }),
    ];
    const item = outboxChangeItem(events).Put?.Item ?? {};
    expect(item.pk).toBe('OUTBOX#payment:p1:deposit:d1:2');
    const back = outboxEventsOfItem(item);
    expect(back.map((e) => e.eventId)).toEqual(events.map((e) => e.eventId));
    expect(back.map(messageBody)).toEqual(events.map(messageBody));
    expect(messageBody(back[1] as OutboxEvent)).toContain('"big":12345678901234567890');
    // The item's own event (the first) is what a one-event reader reads.
    expect(outboxEventFromItem(item).eventId).toBe('payment:p1:deposit:d1:2');
    expect(() => outboxChangeItem([])).toThrow(RangeError);
  });

  it('refuse float amounts in payloads', () => {
    expect(() => outboxPutItem(outboxEvent('t1', 'x', { amount: 0.1 }))).toThrow(/decimal strings/);
    expect(() => outboxChangeItem([outboxEvent('t1', 'x', {}), outboxEvent('t1', 'x', { amount: 0.1 })])).toThrow(/decimal strings/);
  });
});

describe('event router', () => {
  it('routes tenant-visible events to webhook-delivery and drops unrouted types', () => {
    expect(queuesFor('payment_status_update')).toEqual(['webhook-delivery']);
    expect(queuesFor('withdrawal.completed')).toEqual(['webhook-delivery']);
    expect(queuesFor('internal.unknown')).toEqual([]);
    expect(queuesFor('toString')).toEqual([]);
  });

  it('sends in batches of ten with the event id in the body and reports only the failed records', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: { Id: string }[] }) => ({
      Successful: input.Entries.filter((e) => e.Id !== 'm2').map((e) => ({ Id: e.Id, MessageId: `id-${e.Id}`, MD5OfMessageBody: 'x' })),
      Failed: input.Entries.filter((e) => e.Id === 'm2').map((e) => ({ Id: e.Id, SenderFault: false, Code: 'InternalError' })),
    }));
    const events = Array.from({ length: 12 }, (_, i) => outboxEvent('t1', 'payment_status_update', { amount: '0.1', n: i }, { eventId: `e${i}` }));
    const records = [...events.map((e, i) => record(e, `seq-${i}`)), record(outboxEvent('t1', 'internal.unrouted', {}), 'seq-x')];
    const result = await handler({ Records: records });

    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((c) => c.args[0].input.Entries?.length)).toEqual([10, 2]);
    const first = calls[0]?.args[0].input.Entries?.[0];
    expect(parse(first?.MessageBody ?? '')).toMatchObject({ event_id: 'e0', tenant_id: 't1', type: 'payment_status_update', payload: { amount: '0.1' } });
    expect(first?.MessageAttributes?.event_id?.StringValue).toBe('e0');
    // m2 of the first batch is record 2; of the second batch there is no m2.
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'seq-2' }]);
  });

  it('sends a stream batch of 100 events as ten SendMessageBatch calls of ten, all ten in flight at once', async () => {
    let pending = 0;
    let most = 0;
    sqs.on(SendMessageBatchCommand).callsFake(async (input: { Entries: { Id: string }[] }) => {
      most = Math.max(most, ++pending);
      await new Promise((resolve) => setImmediate(resolve));
      pending--;
      return { Successful: input.Entries.map((e) => ({ Id: e.Id, MessageId: `id-${e.Id}`, MD5OfMessageBody: 'x' })), Failed: [] };
    });
    const events = Array.from({ length: 100 }, (_, i) => outboxEvent('t1', 'payment_status_update', { n: i }, { eventId: `e${i}` }));
    const result = await handler({ Records: events.map((e, i) => record(e, `seq-${i}`)) });

    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((c) => c.args[0].input.Entries?.length)).toEqual(Array.from({ length: 10 }, () => 10));
    expect(most).toBe(10);
    // Every event once, in order.
    const sent = calls.flatMap((c) => (c.args[0].input.Entries ?? []).map((e) => (parse(e.MessageBody ?? '') as { event_id: string }).event_id));
    expect(sent).toEqual(events.map((e) => e.eventId));
    expect(result.batchItemFailures).toEqual([]);
  });

  it("sends every event of a change's outbox item, its own body each, as one webhook-delivery message named by the record, as Lambda passes it (base64 binary)", async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: { Id: string }[] }) => ({
      Successful: input.Entries.map((e) => ({ Id: e.Id, MessageId: `id-${e.Id}`, MD5OfMessageBody: 'x' })),
      Failed: [],
    }));
    const events = ['a', 'b', 'c'].map((k) => outboxEvent('t1', 'payment_status_update', { k, n: 1 }, { eventId: `payment:p1:${k}` }));
    const image = marshall(outboxChangeItem(events).Put?.Item ?? {});
    const lambdaImage = { ...image, events: { B: Buffer.from(image.events?.B ?? new Uint8Array()).toString('base64') } };
    const change = { eventName: 'INSERT', dynamodb: { SequenceNumber: 'seq-c', NewImage: lambdaImage as unknown as Record<string, never> } } as DynamoDBRecord;
    // A payment's own item tells nothing: its events are in its outbox item.
    const payment = {
      eventName: 'MODIFY',
      dynamodb: { SequenceNumber: 'seq-p', NewImage: marshall({ pk: 'TENANT#t1', sk: 'PAYMENT#p1', type: 'payment' }) as unknown as Record<string, never> },
    } as DynamoDBRecord;
    const result = await handler({ Records: [change, payment] });
    const entries = sqs.commandCalls(SendMessageBatchCommand).flatMap((c) => c.args[0].input.Entries ?? []);
    expect(entries.map((e) => e.MessageBody)).toEqual([changeMessageBody(events.map(messageBody))]);
    expect(entries.map((e) => e.MessageAttributes?.event_id?.StringValue)).toEqual([events[0]?.eventId]);
    expect(result.batchItemFailures).toEqual([]);
  });

  it('reports every record of a batch whose call failed, and unreadable records', async () => {
    sqs.on(SendMessageBatchCommand).rejects(new Error('unreachable'));
    const bad = {
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: 'seq-bad', NewImage: marshall({ pk: 'OUTBOX#z', sk: 'OUTBOX' }) as unknown as Record<string, never> },
    } as DynamoDBRecord;
    const result = await handler({ Records: [record(outboxEvent('t1', 'deposit_received', {}), 'seq-1'), bad] });
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['seq-1', 'seq-bad']);
  });

  it('forwards stored numbers exactly', () => {
    const image = marshall({ event_id: 'e', tenant_id: 't', type: 'x', occurred_at: 'now', payload: { big: 12345678901234567890n } });
    expect(image.payload).toBeDefined();
    const body = messageBody({ eventId: 'e', tenantId: 't', type: 'x', occurredAt: 'now', payload: { n: 3, s: '1.000000000000000001' } });
    expect(body).toBe('{"event_id":"e","tenant_id":"t","type":"x","occurred_at":"now","payload":{"n":3,"s":"1.000000000000000001"}}');
    const wrapped = handlerImage(image as Record<string, AttributeValue>);
    expect(wrapped).toContain('"big":12345678901234567890');
  });
});

function handlerImage(image: Record<string, AttributeValue>): string {
  const item = unmarshall(image, { wrapNumbers: true });
  return messageBody({ eventId: 'e', tenantId: 't', type: 'x', occurredAt: 'now', payload: item.payload as Record<string, unknown> });
}
