import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { webhooksRuntime } from '../../shared/runtime/webhooks.js';
import { handleWebhookMessage } from '../../shared/usecases/webhooks/deliver.js';

/**
 * The webhook-delivery worker: each message is an outbox event from the event router (planned into deliveries)
 * or one delivery attempt (shared/usecases/webhooks/deliver.ts). Messages run concurrently; what must come back
 * later is reported as a partial batch failure.
 */
const deps = webhooksRuntime();

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const results = await Promise.all(
    event.Records.map(async (record) => {
      try {
        return (await handleWebhookMessage(record.body, deps)) === 'done' ? null : record.messageId;
      } catch (error) {
        console.error(JSON.stringify({ level: 'error', msg: 'webhook message failed', message_id: record.messageId, error: (error as Error).message }));
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: results.filter((id): id is string => id !== null).map((itemIdentifier) => ({ itemIdentifier })) };
}
