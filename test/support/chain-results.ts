import type { SQSEvent } from 'aws-lambda';
import type { ChainTx } from '../../shared/chain/engine/state.js';

/**
 * The message the event router hands the chain-results worker for a chain transaction the engine saw confirmed:
 * its `chain_tx.confirmed` event, as the outbox writes it, in an SQS event of one record.
 */
export function confirmedResult(tx: ChainTx, messageId: string): SQSEvent {
  const body = JSON.stringify({
    event_id: `chain_tx:${tx.requestId}:chain_tx.confirmed`,
    tenant_id: tx.tenantId,
    type: 'chain_tx.confirmed',
    occurred_at: tx.updatedAt,
    payload: { request_id: tx.requestId, network: tx.network, reference: tx.reference, purpose: tx.purpose, tx_hash: tx.mined?.hash ?? null },
  });
  return { Records: [{ messageId, body }] } as unknown as SQSEvent;
}
