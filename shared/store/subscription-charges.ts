import type { PendingCharge } from '../domain/subscriptions.js';
import { queryAll, tableName } from './client.js';
import { subscriptionKeys as keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { TransactionConditionError, transactWrite } from './transact.js';

/**
 * Pull subscriptions' charges waiting for their batch (issue 30): a period's charge is written here in the transaction
 * of its cycle and the subscription's advance (conditioned on being new: its reference is the period's key), and
 * deleted in the transaction that creates the batch's chain-tx request carrying it (conditioned on being there): a
 * charge goes out in exactly one batch, and none is lost between the two.
 */

const keyOf = (c: Pick<PendingCharge, 'mandate' | 'reference'>) => keys.pendingCharge(c.mandate.network, c.mandate.token, c.reference);

export function pendingChargeItem(c: PendingCharge): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...keyOf(c), type: 'pending_charge', record: JSON.stringify(c) },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The pending charges, by network and token (a batch's group), up to `limit`. */
export async function pendingCharges(limit: number): Promise<PendingCharge[]> {
  const items = await queryAll(
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.pendingChargesPartition() },
      ConsistentRead: true,
    },
    limit,
  );
  return items.slice(0, limit).map((item) => JSON.parse(String(item.record)) as PendingCharge);
}

/**
 * Takes `charges` out of the pending ones with `alsoWrite` (the batch's request) in ONE transaction: false when one
 * was taken meanwhile (by another run; nothing written), other failures thrown.
 */
export async function takePendingCharges(charges: readonly PendingCharge[], alsoWrite: readonly TransactItem[]): Promise<boolean> {
  try {
    await transactWrite([
      ...alsoWrite,
      ...charges.map((c) => ({ Delete: { TableName: tableName(), Key: keyOf(c), ConditionExpression: 'attribute_exists(pk)' } })),
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionError) return false;
    throw error;
  }
}
