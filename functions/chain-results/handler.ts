import { CHAIN_RESULT_EVENTS, parseRoutedEvent } from '../../shared/domain/events.js';
import { chainResultsRuntime } from '../../shared/runtime/chain-results.js';
import { sqsWorker } from '../../shared/runtime/worker.js';
import { onChainResult } from '../../shared/usecases/chain-tx/on-chain-result.js';

/**
 * `chain-results` queue consumer: the `chain_tx.confirmed` / `chain_tx.failed` events the event router forwards,
 * parsed with the event catalogue and settled by shared/usecases/chain-tx/on-chain-result.ts (sweeps and
 * withdrawals). A message that does not parse, or whose settlement throws, comes back (partial batch failure).
 */
const deps = chainResultsRuntime();

export const handler = sqsWorker('chain-results', async (record) => {
  await onChainResult(parseRoutedEvent(JSON.parse(record.body), CHAIN_RESULT_EVENTS), deps);
});
