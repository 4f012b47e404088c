/**
 * The gateway's table alone: DynamoDB Local in memory on a free port with the table created, and this process's
 * environment (and the shared config and DynamoDB client) pointed at it. For what needs the table but no other
 * part of the stack: integration tests (test/support/dynamodb.ts) and the bench.
 */
import { resetConfig } from '../../shared/config/config.js';
import { resetDb } from '../../shared/store/client.js';
import { startDynamoDb } from './dynamodb.js';

export interface TableOnly {
  readonly url: string;
  readonly tableName: string;
  stop(): Promise<void>;
}

export async function startTableOnly(tableName: string): Promise<TableOnly> {
  const local = await startDynamoDb({ dbPath: null });
  await local.ensureTable(tableName);
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: local.url,
    STAGE: 'local',
  });
  resetConfig();
  resetDb();
  return {
    url: local.url,
    tableName,
    stop: async () => {
      resetDb();
      await local.close();
    },
  };
}
