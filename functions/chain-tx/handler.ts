import * as z from 'zod';
import { EVENTS, parseRoutedEvent } from '../../shared/domain/events.js';
import { sqsWorker } from '../../shared/runtime/worker.js';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';

const { deps } = chainTxRuntime();

/**
 * `transfers` queue consumer: each message names a chain-tx request to sign and broadcast. Accepted bodies:
 * `{"request_id": "..."}`, or the `chain_tx.requested` event forwarded by the event router (parsed with the
 * event catalogue). A request waiting for gas is not a failure (the follower retries it); anything thrown is
 * reported as a partial batch failure, so only that message comes back. Processing is idempotent: a message
 * delivered twice sends nothing twice. Messages are handled one after the other.
 */
const DirectRequest = z.object({ request_id: z.string().min(1) });

function requestIdOf(body: unknown): string {
  const direct = DirectRequest.safeParse(body);
  return direct.success ? direct.data.request_id : parseRoutedEvent(body, [EVENTS.chainTxRequested]).payload.request_id;
}

export const handler = sqsWorker('chain-tx', async (record) => {
  await processChainTx(requestIdOf(JSON.parse(record.body)), deps);
});
