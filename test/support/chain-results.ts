import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import type { ChainTx } from '../../shared/domain/chain-tx.js';
import { queuesFor } from '../../shared/domain/events.js';
import { db, tableName } from '../../shared/store/client.js';
import { keys } from '../../shared/store/keys.js';
import { messageBody, outboxEventFromItem } from '../../shared/store/outbox.js';

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

/**
 * The chain-results worker's input for a request the engine finished, as the event router sends it: its
 * `chain_tx.confirmed` / `chain_tx.failed` outbox event read back from the table, `times` copies in one batch.
 */
export async function resultAsRouted(tx: ChainTx, times = 1): Promise<SQSEvent> {
  const type = tx.status === 'confirmed' ? 'chain_tx.confirmed' : 'chain_tx.failed';
  const eventId = `chain_tx:${tx.requestId}:${type}`;
  const item = (await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(eventId), ConsistentRead: true }))).Item;
  if (!item) throw new Error(`no outbox event ${eventId}`);
  const event = outboxEventFromItem(item);
  if (!queuesFor(event.type).includes('chain-results')) throw new Error(`${event.type} is not routed to chain-results`);
  return { Records: Array.from({ length: times }, (_, i) => ({ messageId: `${eventId}-${i}`, body: messageBody(event) })) } as unknown as SQSEvent;
}
