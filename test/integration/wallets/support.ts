import type { SQSEvent } from 'aws-lambda';
import { queuesFor } from '../../../shared/domain/events.js';
import { messageBody } from '../../../shared/store/outbox.js';
import { writtenEvent } from '../../support/outbox.js';

/** The SQS message the event router sends for a transfer's `wallet_transfer.accepted`, checked to go to `wallet-transfers`. */
async function routed(transferId: string): Promise<SQSEvent['Records'][number]> {
  // The second event of the transfer's acceptance, in the outbox item of that change.
  const event = await writtenEvent(`wallet_transfer:${transferId}:settle`);
  if (!event) throw new Error(`no outbox event for ${transferId}`);
  expect(queuesFor(event.type)).toEqual(['wallet-transfers']);
  return { messageId: `m-${transferId}`, body: messageBody(event) } as SQSEvent['Records'][number];
}

/** Delivers the transfer's message twice in one batch to the real wallet-transfers worker: both succeed. */
export async function settle(transferId: string): Promise<void> {
  const { handler } = await import('../../../functions/wallet-transfers/handler.js');
  const record = await routed(transferId);
  expect((await handler({ Records: [record, record] } as SQSEvent)).batchItemFailures).toEqual([]);
}
