import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';

const { deps } = chainTxRuntime();

/**
 * `transfers` queue consumer: each message names a chain-tx request to sign and broadcast. Accepted bodies:
 * `{"request_id": "..."}`, or an outbox event forwarded by the event router (`{"payload": {"request_id": ...}}`).
 * A request waiting for gas is not a failure (the follower retries it); anything thrown is reported as a
 * partial batch failure, so only that message comes back. Processing is idempotent: a message delivered
 * twice sends nothing twice.
 */
const Body = z.union([
  z.object({ request_id: z.string().min(1) }),
  z.object({ payload: z.object({ request_id: z.string().min(1) }) }).transform((b) => ({ request_id: b.payload.request_id })),
]);

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const { request_id: requestId } = Body.parse(JSON.parse(record.body));
      await processChainTx(requestId, deps);
    } catch (error) {
      console.error(JSON.stringify({ level: 'error', msg: 'chain-tx processing failed', message_id: record.messageId, error: String(error) }));
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
