import { startDynamoDb, type LocalDynamoDb } from '../../infra/local/dynamodb.js';
import { resetConfig } from '../../shared/config/config.js';
import { resetDb } from '../../shared/store/client.js';

/**
 * DynamoDB Local in memory on a free port with the gateway's table, and the environment pointed at it,
 * for integration tests that need the table but no other part of the stack.
 */
export interface TestTable {
  readonly url: string;
  readonly tableName: string;
  stop(): Promise<void>;
}

export async function startTestTable(tableName = 'gateway-test'): Promise<TestTable> {
  const local: LocalDynamoDb = await startDynamoDb({ dbPath: null });
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
