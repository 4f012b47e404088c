import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TableProbe } from '../usecases/system/ports.js';
import { db, tableName } from './client.js';
import { keys } from './keys.js';

/** A strongly consistent read of a key that never exists: proves the table answers. */
export async function pingTable(abortSignal: AbortSignal): Promise<void> {
  await db().send(new GetCommand({ TableName: tableName(), Key: keys.health, ConsistentRead: true }), { abortSignal });
}

/** The DynamoDB table probe (shared/usecases/system/ports.ts). */
export const dynamoTableProbe: TableProbe = { ping: pingTable };
