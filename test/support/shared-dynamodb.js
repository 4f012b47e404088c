/**
 * Jest's global setup and teardown of the integration and end-to-end projects: DynamoDB Local (in memory), one per
 * Jest worker, started once for the whole run; their URLs in `GATEWAY_TEST_DYNAMODB_URL` (comma-separated), on which
 * the test files' `startTestTable` (./dynamodb.ts) creates their tables, each worker on its own server so that two
 * files running at once never wait on one server's locks. Started once even when both projects run. Plain
 * JavaScript: Jest loads global setup modules without the tests' module mapping, so the stack's TypeScript is loaded
 * through tsx.
 */
import { tsImport } from 'tsx/esm/api';

const ENV = 'GATEWAY_TEST_DYNAMODB_URL';

export async function setup(globalConfig) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (process.env[ENV]) return;
  const { startDynamoDb } = await tsImport('../../infra/local/dynamodb.ts', import.meta.url);
  const servers = Math.max(1, Math.min(globalConfig?.maxWorkers ?? 1, 4));
  globalThis.sharedDynamoDb = await Promise.all(Array.from({ length: servers }, () => startDynamoDb({ dbPath: null })));
  process.env[ENV] = globalThis.sharedDynamoDb.map((db) => db.url).join(',');
}

export async function teardown() {
  const dbs = globalThis.sharedDynamoDb ?? [];
  globalThis.sharedDynamoDb = undefined;
  delete process.env[ENV];
  await Promise.all(dbs.map((db) => db.close()));
}
