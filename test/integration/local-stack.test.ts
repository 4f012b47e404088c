import { DescribeTableCommand, DescribeTimeToLiveCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, ListQueuesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, DynamoDBRecord, DynamoDBStreamEvent, ScheduledEvent, SQSEvent } from 'aws-lambda';
import { QUEUES, queueUrlEnv } from '../../infra/definition.js';
import type { PollerWorker } from '../../infra/local/pollers.js';
import { OUTBOX_KEY_PREFIX, TABLE } from '../../infra/table.js';
import { config } from '../../shared/config/config.js';
import { startTestStack } from '../support/stack.js';
import type { StackHandle } from '../support/stack.js';

/**
 * The local stack without the chain: the table as CDK defines it, every queue with its DLQ, the HTTP API in
 * front of in-memory test functions, and the pollers feeding test workers from a queue, the stream and a
 * schedule, as Lambda's event sources would.
 */

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ------------------------------------------------------------------------------------------------ test workers

/** transfers: succeeds, except a 'fail-once' body is reported in batchItemFailures on its first receive. */
const queueCalls: { body: string; receiveCount: string; messageId: string }[] = [];
/** chain-results: always throws, so its message must end in the DLQ after maxReceiveCount receives. */
let chainResultsCalls = 0;
/** Stream: records of batches that succeeded; a 'poison' record fails every batch it is in. */
const streamDelivered: DynamoDBRecord[] = [];
const streamAttempts = new Map<string, number>();
/** Schedule: runs, and the most runs seen at once. */
const scheduled: ScheduledEvent[] = [];
let running = 0;
let maxRunning = 0;

const idOf = (r: DynamoDBRecord): string => r.dynamodb?.Keys?.pk?.S ?? '';

const workers: PollerWorker[] = [
  {
    name: 'test-transfers',
    trigger: { kind: 'queue', queue: 'transfers', batchSize: 10 },
    timeoutSeconds: 10,
    handler: ((event: SQSEvent) => {
      const failures: { itemIdentifier: string }[] = [];
      for (const r of event.Records) {
        queueCalls.push({ body: r.body, receiveCount: r.attributes.ApproximateReceiveCount, messageId: r.messageId });
        if (r.body === 'fail-once' && r.attributes.ApproximateReceiveCount === '1') failures.push({ itemIdentifier: r.messageId });
      }
      return { batchItemFailures: failures };
    }) as never,
  },
  {
    name: 'test-chain-results',
    trigger: { kind: 'queue', queue: 'chain-results', batchSize: 1 },
    timeoutSeconds: 10,
    handler: (() => {
      chainResultsCalls++;
      throw new Error('always fails');
    }) as never,
  },
  {
    name: 'test-router',
    trigger: { kind: 'stream' },
    timeoutSeconds: 10,
    handler: ((event: DynamoDBStreamEvent) => {
      const failures: { itemIdentifier: string }[] = [];
      for (const r of event.Records) {
        const id = idOf(r);
        streamAttempts.set(id, (streamAttempts.get(id) ?? 0) + 1);
        if (r.dynamodb?.NewImage?.poison) throw new Error(`poison record ${id}`);
        if (r.dynamodb?.NewImage?.failOnce && streamAttempts.get(id) === 1) failures.push({ itemIdentifier: r.dynamodb.SequenceNumber ?? '' });
      }
      if (failures.length > 0) {
        // Records before the first failure count as done (Lambda checkpoints there).
        const firstFailed = event.Records.findIndex((r) => r.dynamodb?.SequenceNumber === failures[0]?.itemIdentifier);
        streamDelivered.push(...event.Records.slice(0, firstFailed));
        return { batchItemFailures: failures };
      }
      streamDelivered.push(...event.Records);
      return undefined;
    }) as never,
  },
  {
    name: 'test-schedule',
    trigger: { kind: 'schedule', everyMinutes: 1 },
    timeoutSeconds: 10,
    handler: (async (event: ScheduledEvent) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      scheduled.push(event);
      // Longer than the (test) period: the next run must wait for this one.
      await new Promise((r) => setTimeout(r, 150));
      running--;
    }) as never,
  },
];

const httpEvents: APIGatewayProxyEventV2[] = [];

let stack: StackHandle;
/** Jest ignores a project's testTimeout (jest.config.js): every hook and test here says its own. */
const TIMEOUT = 60_000;

beforeAll(async () => {
  stack = await startTestStack(
    {},
    {
      workers,
      httpFunctions: [
        {
          name: 'echo',
          routes: ['ANY /echo', 'ANY /echo/{proxy+}'],
          handler: (event) => {
            httpEvents.push(event);
            return { statusCode: 200, body: JSON.stringify({ stage: config().STAGE, table: config().TABLE_NAME }) };
          },
        },
        { name: 'not-found', routes: ['$default'], handler: () => ({ statusCode: 404, body: '{"error":"not_found"}' }) },
      ],
      visibilityTimeoutSeconds: 1,
      stream: { retryAttempts: 1, retryDelayMs: 20, pollIntervalMs: 50 },
      schedule: { firstRunDelayMs: 10, intervalMs: () => 100 },
    },
  );
}, TIMEOUT);

afterAll(() => stack?.stop(), TIMEOUT);

describe('resources', () => {
  it(
    'creates the table from infra/table.ts: keys, GSIs (ALL projection), on-demand, TTL and a NEW_IMAGE stream',
    async () => {
      const { Table } = await stack.dynamodb.client.send(new DescribeTableCommand({ TableName: stack.stackJson.tableName }));
      expect(Table?.KeySchema).toEqual([
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ]);
      expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
      const indexes = (Table?.GlobalSecondaryIndexes ?? []).map((i) => ({
        name: i.IndexName,
        keys: i.KeySchema?.map((k) => k.AttributeName),
        projection: i.Projection?.ProjectionType,
      }));
      expect(indexes.sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual(
        TABLE.indexes.map((i) => ({ name: i.name, keys: [i.partitionKey, i.sortKey], projection: 'ALL' })),
      );
      expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: TABLE.streamView });
      expect(Table?.LatestStreamArn).toBeTruthy();
      const ttl = await stack.dynamodb.client.send(new DescribeTimeToLiveCommand({ TableName: stack.stackJson.tableName }));
      expect(ttl.TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: TABLE.ttlAttribute });
    },
    TIMEOUT,
  );

  it(
    'creates every queue with its DLQ and redrive policy, and publishes the URLs',
    async () => {
      const listed = (await stack.sqs.client.send(new ListQueuesCommand({}))).QueueUrls ?? [];
      for (const q of QUEUES) {
        const url = stack.stackJson.queueUrls[q.name];
        const dlqUrl = stack.stackJson.dlqUrls[q.name];
        expect(listed).toEqual(expect.arrayContaining([url, dlqUrl]));
        expect(stack.env[queueUrlEnv(q.name)]).toBe(url);
        expect(process.env[queueUrlEnv(q.name)]).toBe(url);
        const dlqArn = (await stack.sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
        const attrs = (await stack.sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes;
        expect(JSON.parse(attrs?.RedrivePolicy ?? '{}')).toEqual({ deadLetterTargetArn: dlqArn, maxReceiveCount: q.maxReceiveCount });
      }
    },
    TIMEOUT,
  );

  it(
    'sets the environment the handlers read',
    () => {
      expect(process.env).toMatchObject({
        TABLE_NAME: 'gateway',
        AWS_REGION: 'us-east-1',
        STAGE: 'local',
        ALLOW_LOOPBACK_CALLBACKS: 'true',
        AWS_ENDPOINT_URL_DYNAMODB: stack.stackJson.dynamodbUrl,
        AWS_ENDPOINT_URL_DYNAMODB_STREAMS: stack.stackJson.dynamodbUrl,
        AWS_ENDPOINT_URL_SQS: stack.stackJson.sqsUrl,
        PUBLIC_BASE_URL: stack.apiUrl,
      });
      expect(process.env.AWS_ENDPOINT_URL_KMS).toBe(stack.stackJson.kmsUrl);
      expect(process.env.SECRETS_KEY_ID).toBe(stack.stackJson.keys.secretsKeyId);
      expect(stack.stackJson.keys.signingKeyId).toBeTruthy();
      expect(config().STAGE).toBe('local');
    },
    TIMEOUT,
  );
});

describe('HTTP API', () => {
  it(
    'serves the injected functions with the stack environment, and $default for the rest',
    async () => {
      const res = await fetch(`${stack.apiUrl}/echo/?a=1`, { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ stage: 'local', table: 'gateway' });
      const event = httpEvents[httpEvents.length - 1];
      expect(event?.rawPath).toBe('/echo/');
      expect(event?.routeKey).toBe('ANY /echo');
      expect(event?.isBase64Encoded).toBe(true);
      expect(event?.body).toBe(Buffer.from('x=1').toString('base64'));
      expect((await fetch(`${stack.apiUrl}/elsewhere`)).status).toBe(404);
    },
    TIMEOUT,
  );
});

describe('queue pollers', () => {
  it(
    'delivers a message to its worker and deletes it; a message in batchItemFailures comes back',
    async () => {
      const url = stack.sqs.queueUrls.transfers;
      await stack.sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'ok' }));
      await stack.sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'fail-once' }));
      await until('the failed message to come back', () => queueCalls.find((c) => c.body === 'fail-once' && c.receiveCount === '2'));
      // Both are deleted once handled: the queue empties.
      await until('the queue to be empty', async () => {
        const a = (await stack.sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes;
        return a?.ApproximateNumberOfMessages === '0' && a.ApproximateNumberOfMessagesNotVisible === '0' ? true : undefined;
      });
      expect(queueCalls.filter((c) => c.body === 'ok')).toHaveLength(1);
      expect(queueCalls.filter((c) => c.body === 'fail-once').map((c) => c.receiveCount)).toEqual(['1', '2']);
    },
    TIMEOUT,
  );

  it(
    'deletes nothing when the worker throws: after maxReceiveCount receives the message is in the DLQ',
    async () => {
      await stack.sqs.client.send(new SendMessageCommand({ QueueUrl: stack.sqs.queueUrls['chain-results'], MessageBody: 'doomed' }));
      const maxReceive = QUEUES.find((q) => q.name === 'chain-results')?.maxReceiveCount ?? 0;
      const dead = await until(
        'the message in the DLQ',
        async () =>
          (await stack.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: stack.sqs.dlqUrls['chain-results'], WaitTimeSeconds: 1 }))).Messages?.[0],
        30_000,
      );
      expect(dead.Body).toBe('doomed');
      expect(chainResultsCalls).toBe(maxReceive);
    },
    TIMEOUT,
  );
});

describe('stream poller', () => {
  const put = (pk: string, extra: Record<string, { BOOL: boolean }> = {}) =>
    stack.dynamodb.client.send(
      new PutItemCommand({ TableName: stack.stackJson.tableName, Item: { [TABLE.partitionKey]: { S: pk }, [TABLE.sortKey]: { S: 'OUTBOX' }, ...extra } }),
    );

  it(
    'passes only INSERTs of outbox items, in order',
    async () => {
      await put(`${OUTBOX_KEY_PREFIX}first`);
      await put('TENANT#not-an-event');
      await stack.dynamodb.client.send(
        new UpdateItemCommand({
          TableName: stack.stackJson.tableName,
          Key: { [TABLE.partitionKey]: { S: `${OUTBOX_KEY_PREFIX}first` }, [TABLE.sortKey]: { S: 'OUTBOX' } },
          UpdateExpression: 'SET touched = :t',
          ExpressionAttributeValues: { ':t': { BOOL: true } },
        }),
      );
      await put(`${OUTBOX_KEY_PREFIX}second`);
      await until('both outbox records', () => (streamDelivered.some((r) => idOf(r) === `${OUTBOX_KEY_PREFIX}second`) ? true : undefined));
      const ids = streamDelivered.map(idOf);
      expect(ids).toEqual([`${OUTBOX_KEY_PREFIX}first`, `${OUTBOX_KEY_PREFIX}second`]);
      expect(streamDelivered.every((r) => r.eventName === 'INSERT')).toBe(true);
      const record = streamDelivered[0] as DynamoDBRecord;
      expect(record.eventSource).toBe('aws:dynamodb');
      expect(record.eventSourceARN).toMatch(/^arn:aws:dynamodb:.*:table\/gateway\/stream\//);
      expect(typeof record.dynamodb?.ApproximateCreationDateTime).toBe('number');
      expect(record.dynamodb?.NewImage?.[TABLE.sortKey]).toEqual({ S: 'OUTBOX' });
      expect(record.dynamodb?.StreamViewType).toBe('NEW_IMAGE');
    },
    TIMEOUT,
  );

  it(
    'retries from a reported failure, and sends a poison record to the failure queue after bisecting and retrying',
    async () => {
      streamDelivered.length = 0;
      await put(`${OUTBOX_KEY_PREFIX}a`);
      await put(`${OUTBOX_KEY_PREFIX}poison`, { poison: { BOOL: true } });
      await put(`${OUTBOX_KEY_PREFIX}retry`, { failOnce: { BOOL: true } });
      await put(`${OUTBOX_KEY_PREFIX}b`);
      const failure = await until(
        'the poison record in event-router-failures',
        async () =>
          (await stack.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: stack.sqs.queueUrls['event-router-failures'], WaitTimeSeconds: 1 })))
            .Messages?.[0],
      );
      const body = JSON.parse(failure.Body ?? '{}') as { DDBStreamBatchInfo: { batchSize: number; streamArn: string }; records: DynamoDBRecord[] };
      expect(body.DDBStreamBatchInfo.batchSize).toBe(1);
      expect(body.records.map(idOf)).toEqual([`${OUTBOX_KEY_PREFIX}poison`]);
      await until('the records after the poison one', () => (streamDelivered.some((r) => idOf(r) === `${OUTBOX_KEY_PREFIX}b`) ? true : undefined));
      const done = new Set(streamDelivered.map(idOf));
      expect(done).toEqual(new Set([`${OUTBOX_KEY_PREFIX}a`, `${OUTBOX_KEY_PREFIX}retry`, `${OUTBOX_KEY_PREFIX}b`]));
      // Retried after its reported failure; the poison record tried 1 + retryAttempts times once isolated.
      expect(streamAttempts.get(`${OUTBOX_KEY_PREFIX}retry`)).toBeGreaterThanOrEqual(2);
      expect(streamAttempts.get(`${OUTBOX_KEY_PREFIX}poison`)).toBeGreaterThanOrEqual(2);
    },
    TIMEOUT,
  );
});

describe('schedules', () => {
  it(
    'sends EventBridge scheduled events, first shortly after start, never two runs at once',
    async () => {
      await until('three scheduled runs', () => (scheduled.length >= 3 ? true : undefined));
      expect(maxRunning).toBe(1);
      const event = scheduled[0] as ScheduledEvent;
      expect(event['detail-type']).toBe('Scheduled Event');
      expect(event.source).toBe('aws.events');
      expect(event.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(event.resources[0]).toContain('test-schedule');
      expect(event.detail).toEqual({});
    },
    TIMEOUT,
  );

  it(
    'runs a worker once on demand',
    async () => {
      const before = scheduled.length;
      await stack.pollers?.runOnce('test-schedule');
      expect(scheduled.length).toBeGreaterThan(before);
      expect(maxRunning).toBe(1);
    },
    TIMEOUT,
  );
});
