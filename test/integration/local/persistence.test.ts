import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PollerWorker } from '../../../infra/local/pollers.js';
import { OUTBOX_KEY_PREFIX } from '../../../infra/table.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';

/** State in a data dir survives a stop/start: table data, KMS keys, and the stream checkpoint. */

const TIMEOUT = 60_000;
const delivered: string[] = [];
const worker: PollerWorker = {
  name: 'test-persisted-router',
  trigger: { kind: 'stream' },
  timeoutSeconds: 10,
  handler: ((event: DynamoDBStreamEvent) => {
    delivered.push(...event.Records.map((r: DynamoDBRecord) => r.dynamodb?.Keys?.pk?.S ?? ''));
  }) as never,
};

async function until(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const alive = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let dataDir: string;
let stack: TestStack | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-persist-'));
}, TIMEOUT);

afterAll(async () => {
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
}, TIMEOUT);

const start = (): Promise<TestStack> => startTestStack({ http: false }, { dataDir, workers: [worker], stream: { pollIntervalMs: 50 } });

const put = (s: TestStack, pk: string): Promise<unknown> =>
  s.dynamodb.client.send(new PutItemCommand({ TableName: s.stackJson.tableName, Item: { pk: { S: pk }, sk: { S: 'OUTBOX' } } }));

it(
  'keeps items, keys and the stream position across a restart, and kills its children on stop',
  async () => {
    stack = await start();
    const first = stack;
    await put(first, `${OUTBOX_KEY_PREFIX}before-restart`);
    await until('the first event', () => delivered.includes(`${OUTBOX_KEY_PREFIX}before-restart`));
    const keys = first.stackJson.keys;
    expect(keys.secretsKeyId).toBeTruthy();
    const stackJson = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as { dynamodbUrl: string; keys: unknown };
    expect(stackJson.dynamodbUrl).toBe(first.stackJson.dynamodbUrl);
    expect(stackJson.keys).toEqual(keys);
    const pid = first.dynamodb.pid;
    expect(alive(pid)).toBe(true);

    await first.stop();
    stack = undefined;
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(dataDir, 'dynamodb', 'shared-local-instance.db'))).toBe(true);

    stack = await start();
    const item = await stack.dynamodb.client.send(
      new GetItemCommand({ TableName: stack.stackJson.tableName, Key: { pk: { S: `${OUTBOX_KEY_PREFIX}before-restart` }, sk: { S: 'OUTBOX' } } }),
    );
    expect(item.Item?.pk?.S).toBe(`${OUTBOX_KEY_PREFIX}before-restart`);
    expect(stack.stackJson.keys).toEqual(keys);

    // The stream resumes after its checkpoint: the old event is not delivered again.
    await put(stack, `${OUTBOX_KEY_PREFIX}after-restart`);
    await until('the second event', () => delivered.includes(`${OUTBOX_KEY_PREFIX}after-restart`));
    expect(delivered).toEqual([`${OUTBOX_KEY_PREFIX}before-restart`, `${OUTBOX_KEY_PREFIX}after-restart`]);
  },
  TIMEOUT,
);
