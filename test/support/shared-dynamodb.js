/**
 * Jest's global setup and teardown of the integration and end-to-end projects: ONE DynamoDB Local (in memory) for the
 * whole run, its URL in `GATEWAY_TEST_DYNAMODB_URL`, on which the test files' `startTestTable` (./dynamodb.ts)
 * creates their tables. Started once even when both projects run. Plain JavaScript: Jest loads global setup modules
 * without the tests' module mapping, so the stack's TypeScript is loaded through tsx.
 */
import { tsImport } from 'tsx/esm/api';

const ENV = 'GATEWAY_TEST_DYNAMODB_URL';

export async function setup() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (process.env[ENV]) return;
  const { startDynamoDb } = await tsImport('../../infra/local/dynamodb.ts', import.meta.url);
  globalThis.sharedDynamoDb = await startDynamoDb({ dbPath: null });
  process.env[ENV] = globalThis.sharedDynamoDb.url;
}

export async function teardown() {
  const db = globalThis.sharedDynamoDb;
  globalThis.sharedDynamoDb = undefined;
  delete process.env[ENV];
  await db?.close();
}
