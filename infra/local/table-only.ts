/**
 * The gateway's table alone: DynamoDB Local in memory on a free port with the table created, and this process's
 * environment (and the shared config and DynamoDB client) pointed at it. For what needs the table but no other
 * part of the stack: integration tests (test/support/dynamodb.ts) and the bench.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { resetConfig } from '../../shared/config/config.js';
import { resetDb } from '../../shared/store/client.js';
import { dynamoDbClient, ensureTable, startDynamoDb } from './dynamodb.js';

export interface TableOnly {
  readonly url: string;
  readonly tableName: string;
  stop(): Promise<void>;
}

/** Points this process's environment (and the shared config and DynamoDB client) at `tableName` on `url`. */
function pointAt(url: string, tableName: string): void {
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: url,
    STAGE: 'local',
  });
  resetConfig();
  resetDb();
}

export async function startTableOnly(tableName: string): Promise<TableOnly> {
  const local = await startDynamoDb({ dbPath: null });
  await local.ensureTable(tableName);
  pointAt(local.url, tableName);
  return {
    url: local.url,
    tableName,
    stop: async () => {
      resetDb();
      await local.close();
    },
  };
}

/**
 * The gateway's table created on a DynamoDB Local already running at `url` (one server for many users, each with a
 * table of its own), the environment pointed at it; `stop` deletes the table and leaves the server running.
 */
export async function tableOn(url: string, tableName: string): Promise<TableOnly> {
  const client = dynamoDbClient(url);
  try {
    await ensureTable(client, tableName);
  } finally {
    client.destroy();
  }
  pointAt(url, tableName);
  return {
    url,
    tableName,
    stop: async () => {
      resetDb();
      const c = dynamoDbClient(url);
      try {
        await c.send(new DeleteTableCommand({ TableName: tableName }));
      } finally {
        c.destroy();
      }
    },
  };
}
