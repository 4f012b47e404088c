import { startTableOnly } from '../../infra/local/table-only.js';
import type { TableOnly } from '../../infra/local/table-only.js';

/**
 * DynamoDB Local in memory on a free port with the gateway's table, and the environment pointed at it,
 * for integration tests that need the table but no other part of the stack (infra/local/table-only.ts).
 */
export type TestTable = TableOnly;

export function startTestTable(tableName = 'gateway-test'): Promise<TestTable> {
  return startTableOnly(tableName);
}
