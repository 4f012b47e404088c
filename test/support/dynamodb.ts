import { randomBytes } from 'node:crypto';
import { startTableOnly, tableOn } from '../../infra/local/table-only.js';
import type { TableOnly } from '../../infra/local/table-only.js';

/**
 * The gateway's table in DynamoDB Local, and the environment pointed at it, for integration tests that need the table
 * but no other part of the stack (infra/local/table-only.ts). Under Jest a DynamoDB Local per worker serves the whole
 * run (test/support/shared-dynamodb.js starts them, `GATEWAY_TEST_DYNAMODB_URL`): each test file gets a table of its
 * own on its worker's, deleted when it stops, so no file sees another's items and none pays for a server's start.
 * Without those servers (a test run alone by another runner) the file starts one of its own.
 */
export type TestTable = TableOnly;

export const SHARED_DYNAMODB_ENV = 'GATEWAY_TEST_DYNAMODB_URL';

export function startTestTable(tableName = 'gateway-test'): Promise<TestTable> {
  const servers = (process.env[SHARED_DYNAMODB_ENV] ?? '').split(',').filter(Boolean);
  // Each Jest worker on a server of its own (JEST_WORKER_ID counts from 1).
  const shared = servers[(Number(process.env.JEST_WORKER_ID ?? '1') - 1) % Math.max(servers.length, 1)];
  if (!shared) return startTableOnly(tableName);
  return tableOn(shared, `${tableName}-${randomBytes(6).toString('hex')}`);
}
