import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { queuesFor } from '../../../shared/domain/events.js';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { messageBody, outboxEventFromItem } from '../../../shared/store/outbox.js';

/** The SQS message the event router sends for a transfer's `wallet_transfer.accepted`, checked to go to `wallet-transfers`. */
async function routed(transferId: string): Promise<SQSEvent['Records'][number]> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(`wallet_transfer:${transferId}:settle`), ConsistentRead: true }));
  if (!Item) throw new Error(`no outbox event for ${transferId}`);
  const event = outboxEventFromItem(Item);
  expect(queuesFor(event.type)).toEqual(['wallet-transfers']);
  return { messageId: `m-${transferId}`, body: messageBody(event) } as SQSEvent['Records'][number];
}

/** Delivers the transfer's message twice in one batch to the real wallet-transfers worker: both succeed. */
export async function settle(transferId: string): Promise<void> {
  const { handler } = await import('../../../functions/wallet-transfers/handler.js');
  const record = await routed(transferId);
  expect((await handler({ Records: [record, record] } as SQSEvent)).batchItemFailures).toEqual([]);
}
