import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config/config.js';

/**
 * The document client, created once per process. Numbers are read wrapped (`wrapNumbers`) so that no
 * stored amount passes through a float; repositories turn them into decimal strings or integers.
 */
let client: DynamoDBDocumentClient | undefined;

export function db(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({ region: config().AWS_REGION, maxAttempts: 5 }), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: true },
  });
  return client;
}

export function tableName(): string {
  return config().TABLE_NAME;
}

/** Drop the client so the next call builds one from the current configuration (tests, local stack). */
export function resetDb(): void {
  client?.destroy();
  client = undefined;
}
