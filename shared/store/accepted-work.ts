import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { requestIdOf, resultEventOf } from '../domain/chain-tx.js';
import type { OutboxEvent } from '../domain/events.js';
import { queuesFor } from '../domain/events.js';
import { exportRequest } from '../domain/exports.js';
import type { AcceptedWork, AcceptedWorkKind, RedriveRecord } from '../domain/reconcile.js';
import { settlementRequest } from '../domain/wallets.js';
import { deliveryMessageBody, isPendingDelivery } from '../domain/webhooks.js';
import { isProcessing, sentBySolanaWorker, transferReferenceOf } from '../domain/withdrawals.js';
import type { AcceptedWorkQueue, OverdueWork, RedriveLog, RedriveMessage } from '../usecases/monitoring/ports.js';
import { chainTxOutboxEvents, dynamoChainTxStore } from './chain-tx.js';
import { batchGet, db, queryAll, tableName } from './client.js';
import { exportOfItem, exportOutboxEvents } from './exports.js';
import { keys } from './keys.js';
import { messageBody } from './outbox.js';
import { isConditionalCheckFailed } from './transact.js';
import { transferOfItem, transferOutboxEvents } from './wallets.js';
import { readDelivery } from './webhooks/deliveries.js';
import { queuedWithdrawals } from './withdrawals.js';

/**
 * The reconciler's reads and its re-drive records (shared/usecases/monitoring/reconcile.ts). Each kind of accepted
 * work waits in a gsi3 work queue while open, sorted by creation time, so the overdue part is one Query from the
 * oldest (never a scan). Each piece comes with the message that moves it: the event its acceptance (or its chain
 * transaction's result) wrote to the outbox, rebuilt from the stored state by the same domain function and the same
 * natural id, and spelled as the event router spells it (`messageBody`), for the queue the catalogue routes it to.
 */

/** The router's message for an outbox event: its one consumer queue (internal events have exactly one). */
function messageOf(event: OutboxEvent | undefined): RedriveMessage {
  if (!event) throw new TypeError('No event to re-drive');
  const [queue] = queuesFor(event.type);
  if (!queue) throw new TypeError(`No queue consumes ${event.type}`);
  return { queue, eventId: event.eventId, eventType: event.type, body: messageBody(event) };
}

/** The items of a `<created_at>#<tid>#<id>` gsi3 work queue created at or before `before`, oldest first. */
const createdBefore = (partition: string, before: string, limit: number) =>
  queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk <= :by',
      ExpressionAttributeValues: { ':pk': partition, ':by': keys.createdBy(before) },
      ScanIndexForward: true,
    },
    limit,
  );

const notChangedSince = (before: string) => (w: { readonly updatedAt: string }) => !(w.updatedAt > before);

/** A piece of open work as its queue's item says, with the message that moves it. */
type QueuedWork = Omit<OverdueWork, 'kind'>;

/**
 * A `<created_at>#<tid>#<id>` gsi3 work queue of one kind: each item read into its work (null: nothing to re-send),
 * the work changed since `before` left out.
 */
function createdWorkQueue(kind: AcceptedWorkKind, partition: () => string, workOf: (item: Record<string, unknown>) => QueuedWork | null): AcceptedWorkQueue {
  return {
    kind,
    overdue: async (before, limit) =>
      (await createdBefore(partition(), before, limit)).flatMap((item) => {
        const work = workOf(item);
        return work && notChangedSince(before)(work) ? [{ kind, ...work }] : [];
      }),
  };
}

/** Accepted wallet transfers: `wallet_transfer.accepted` again, for the wallet-transfers worker. */
export const acceptedTransfers = createdWorkQueue('wallet_transfer', keys.walletTransferQueuePartition, (item) => {
  const t = transferOfItem(item);
  const message = messageOf(transferOutboxEvents(t, [settlementRequest(t)], new Date(t.createdAt))[0]);
  return { tenantId: t.tenantId, id: t.id, status: t.status, updatedAt: t.updatedAt, message };
});

/** Exports not yet written: `transaction_export.requested` again, for the transaction-exports worker. */
export const openExports = createdWorkQueue('transaction_export', keys.exportQueuePartition, (item) => {
  const e = exportOfItem(item);
  const message = messageOf(exportOutboxEvents(e, [exportRequest(e)], new Date(e.createdAt))[0]);
  return { tenantId: e.tenantId, id: e.id, status: e.status, updatedAt: e.updatedAt, message };
});

/**
 * Processing withdrawals (main and custody) whose chain transaction has its result: that result's event again, for
 * the chain-results worker. One whose transaction is still open is the chain-tx follower's (and the batcher re-asks
 * for a missing request), and Solana ones are the custody-solana worker's: neither waits for a lost message.
 */
export const processingWithdrawals: AcceptedWorkQueue = {
  kind: 'withdrawal',
  overdue: async (before, limit) => {
    const waiting = (await queuedWithdrawals('processing', limit)).filter((w) => isProcessing(w) && !sentBySolanaWorker(w)).filter(notChangedSince(before));
    const requests = new Map(
      await Promise.all(
        [...new Set(waiting.map((w) => requestIdOf(w.network, transferReferenceOf(w))))].map(async (id) => [id, await dynamoChainTxStore.get(id)] as const),
      ),
    );
    const out: OverdueWork[] = [];
    for (const w of waiting) {
      const tx = requests.get(requestIdOf(w.network, transferReferenceOf(w)));
      const result = tx ? resultEventOf(tx) : null;
      if (!tx || !result) continue;
      const [event] = chainTxOutboxEvents(tx, [result], new Date(tx.updatedAt));
      out.push({ kind: 'withdrawal', tenantId: w.tenantId, id: w.id, status: w.status, updatedAt: w.updatedAt, message: messageOf(event) });
    }
    return out;
  },
};

/**
 * Webhook redeliveries accepted (202) whose first attempt is not made: their delivery message again, for the
 * webhook-delivery worker (its claim is conditioned on the attempt count, so a message not lost after all sends once).
 */
export const openRedeliveries = createdWorkQueue('webhook_redelivery', keys.redeliveryQueuePartition, (item) => {
  const d = readDelivery(item);
  if (!isPendingDelivery(d) || d.attempts > 0) return null;
  const body = deliveryMessageBody({ tenant_id: d.tenantId, delivery_id: d.deliveryId, attempt: 1, due_at: d.createdAt });
  return {
    tenantId: d.tenantId,
    id: d.deliveryId,
    status: d.status,
    updatedAt: d.createdAt,
    message: { queue: 'webhook-delivery', eventId: d.deliveryId, eventType: 'webhook_delivery', body },
  };
});

export const ACCEPTED_WORK_QUEUES: readonly AcceptedWorkQueue[] = [acceptedTransfers, openExports, processingWithdrawals, openRedeliveries];

/* ---------------------------------------------------------------- re-drive records */

/** A record is kept a week after its last re-drive (long after the work is done or looked at). */
const REDRIVE_TTL_SECONDS = 7 * 86_400;

const redriveKeyOf = (w: Pick<AcceptedWork, 'kind' | 'tenantId' | 'id'>) => keys.redrive(w.tenantId, w.kind, w.id);
const mapKey = (kind: string, tenantId: string, id: string): string => `${kind}:${tenantId}:${id}`;

export const dynamoRedriveLog: RedriveLog = {
  async get(work) {
    const items = await batchGet(work.map(redriveKeyOf), { consistent: true });
    const out = new Map<string, RedriveRecord>();
    for (const item of items) {
      const { kind, tenant_id: tenantId, work_id: id, count, last_at: lastAt } = item;
      if (typeof kind !== 'string' || typeof tenantId !== 'string' || typeof id !== 'string' || typeof lastAt !== 'string') continue;
      out.set(mapKey(kind, tenantId, id), { count: Number(String(count)), lastAt });
    }
    return out;
  },
  async claim(work, previous, next) {
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...redriveKeyOf(work),
            type: 'redrive',
            kind: work.kind satisfies AcceptedWorkKind,
            tenant_id: work.tenantId,
            work_id: work.id,
            count: next.count,
            last_at: next.lastAt,
            ttl: Math.floor(Date.parse(next.lastAt) / 1000) + REDRIVE_TTL_SECONDS,
          },
          ...(previous === null
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: 'last_at = :last', ExpressionAttributeValues: { ':last': previous.lastAt } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  },
};
