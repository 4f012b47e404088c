import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Decimal } from '../domain/money.js';
import type { WithdrawalEvent, WithdrawalState } from '../domain/withdrawals.js';
import { withdrawalAmountSortKey } from '../domain/withdrawals.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { OutboxEvent } from './outbox.js';
import { outboxEvent } from './outbox.js';
import type { TransactItem } from './transact.js';
import { storedDecimal } from './values.js';

/**
 * Withdrawals on the single table. The record is kept whole as JSON text (`state`; amounts are decimal
 * strings inside it) next to the attributes lists order on. Every save conditions on `version`. Indexes
 * (shared/store/keys.ts): gsi1 per tenant by creation, gsi2 per tenant by amount, gsi3 the pending queue.
 * Ledger movements and events go in the same transaction through the ledger's `extraItems`.
 */

type Stored = Record<string, unknown>;

/** gsi3 work queues: pending (the batcher's input) and processing (re-asked for its chain transaction until settled). */
function queueKeys(w: WithdrawalState): Record<string, string> {
  if (w.status === 'pending') return keys.withdrawalQueue('PENDING', w.createdAt, w.tenantId, w.id);
  if (w.status === 'processing') return keys.withdrawalQueue('PROCESSING', w.createdAt, w.tenantId, w.id);
  return {};
}

export function withdrawalItem(w: WithdrawalState): Stored {
  return {
    ...keys.withdrawal(w.tenantId, w.id),
    ...keys.withdrawalList(w.tenantId, w.createdAt, w.id),
    ...keys.withdrawalAmountList(w.tenantId, withdrawalAmountSortKey(w.amount), w.id),
    ...queueKeys(w),
    type: 'withdrawal',
    tenant_id: w.tenantId,
    withdrawal_id: w.id,
    status: w.status,
    currency: w.currency,
    network: w.network,
    created_at: w.createdAt,
    version: w.version,
    state: JSON.stringify(w),
  };
}

export function withdrawalFromItem(item: Stored): WithdrawalState {
  if (typeof item.state !== 'string') throw new TypeError('Not a withdrawal item');
  return JSON.parse(item.state) as WithdrawalState;
}

/** Put of the new state, conditioned on the version read (null: must not exist yet). */
export function saveWithdrawalItem(next: WithdrawalState, expectedVersion: number | null): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: withdrawalItem(next),
      ...(expectedVersion === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': expectedVersion } }),
    },
  };
}

/** Outbox events of a change, with natural ids (a replayed change writes the same ids). */
export function withdrawalOutbox(w: WithdrawalState, events: readonly WithdrawalEvent[], now: Date): OutboxEvent[] {
  return events.map((e) => outboxEvent(w.tenantId, e.type, { ...e.payload, callback_url: w.callbackUrl }, { now, eventId: `withdrawal:${w.id}:${e.key}` }));
}

export async function getWithdrawal(tenantId: string, withdrawalId: string): Promise<WithdrawalState | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.withdrawal(tenantId, withdrawalId), ConsistentRead: true }));
  return Item ? withdrawalFromItem(Item) : null;
}


/** Every withdrawal of a tenant in an order: by creation (gsi1) or by amount (gsi2), optionally bounded by creation time. */
export async function queryWithdrawals(
  tenantId: string,
  order: { readonly by: 'created' | 'amount'; readonly ascending: boolean; readonly from?: string; readonly to?: string },
): Promise<WithdrawalState[]> {
  if (order.by === 'amount') {
    const items = await queryAll({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.withdrawalAmountPartition(tenantId) },
      ScanIndexForward: order.ascending,
    });
    return items.map(withdrawalFromItem);
  }
  const from = order.from ?? '0000';
  const to = `${order.to ?? '9999'}~`;
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.withdrawalListPartition(tenantId), ':from': from, ':to': to },
    ScanIndexForward: order.ascending,
  });
  return items.map(withdrawalFromItem);
}

/** The oldest pending (or processing) withdrawals of every tenant (the batcher's queues, gsi3). */
export async function queuedWithdrawals(status: 'pending' | 'processing', limit: number): Promise<WithdrawalState[]> {
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.withdrawalQueuePartition(status === 'pending' ? 'PENDING' : 'PROCESSING') },
      ScanIndexForward: true,
      Limit: limit,
    },
    limit,
  );
  return items.slice(0, limit).map(withdrawalFromItem);
}

/**
 * Adds a withdrawal's USD value to the tenant's total of the day, conditioned so the total stays within the
 * daily limit (`room` = limit - this withdrawal). Goes in the creation transaction.
 */
export function withdrawalDayItem(tenantId: string, day: string, amountUsd: Decimal, room: Decimal, now: Date): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.withdrawalDay(tenantId, day),
      UpdateExpression: 'ADD #t :a SET #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#t) OR #t <= :room',
      ExpressionAttributeNames: { '#t': 'total_usd', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':a': storedDecimal(amountUsd), ':room': storedDecimal(room), ':ttl': Math.floor(now.getTime() / 1000) + 3 * 86400 },
    },
  };
}
