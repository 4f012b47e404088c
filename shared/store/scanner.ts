import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import type { ScanCursor, ScanCursorStore } from '../usecases/scanner/ports.js';
import { keys } from './keys.js';
import { isConditionalCheckFailed } from './transact.js';
import { integer } from './values.js';

/**
 * The per-network scanner cursor: the last block scanned, the hashes of recent checkpoints (to notice a
 * reorg: the parent of the next range must still have the recorded hash) and the lease that lets one scanner
 * per network run. Every change is a conditional update.
 */
export type Cursor = ScanCursor;

export const RECENT_CHECKPOINTS = 64;

export async function getCursor(network: string): Promise<Cursor | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.scannerCursor(network), ConsistentRead: true }));
  if (!Item || Item.block === undefined) return null;
  return { network, block: integer(Item.block), hashes: JSON.parse(String(Item.hashes ?? '[]')) as Cursor['hashes'] };
}

/** Moves the cursor from `expected` (null: not created yet) to `next`; false when another writer moved it. */
export async function moveCursor(network: string, expected: number | null, next: Cursor): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.scannerCursor(network),
        UpdateExpression: 'SET #b = :b, hashes = :h',
        ConditionExpression: expected === null ? 'attribute_not_exists(#b)' : '#b = :e',
        ExpressionAttributeNames: { '#b': 'block' },
        ExpressionAttributeValues: {
          ':b': next.block,
          ':h': JSON.stringify(next.hashes.slice(-RECENT_CHECKPOINTS)),
          ...(expected === null ? {} : { ':e': expected }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** Takes (or renews) the network's lease until `until`; false while another owner holds it. */
export async function acquireLease(network: string, owner: string, now: Date, until: Date): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.scannerCursor(network),
        UpdateExpression: 'SET lease_owner = :o, lease_until = :u',
        ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until < :now OR lease_owner = :o',
        ExpressionAttributeValues: { ':o': owner, ':u': until.toISOString(), ':now': now.toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

export async function leaseHeld(network: string, now: Date): Promise<boolean> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.scannerCursor(network), ProjectionExpression: 'lease_until' }));
  return typeof Item?.lease_until === 'string' && Item.lease_until >= now.toISOString();
}

export async function releaseLease(network: string, owner: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.scannerCursor(network),
        UpdateExpression: 'REMOVE lease_owner, lease_until',
        ConditionExpression: 'lease_owner = :o',
        ExpressionAttributeValues: { ':o': owner },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/**
 * Whether a network has something its scanner watches closely: a payment waiting (native coin or token) or open
 * on it, or a custody deposit still confirming. One single-item query per work queue (gsi3), asked in turn and
 * stopping at the first hit: at most four queries, about 0.5 read units each on empty queues.
 */
export async function networkWatching(network: string): Promise<boolean> {
  const partitions = [
    keys.paymentQueuePartition({ kind: 'open', network }),
    keys.paymentQueuePartition({ kind: 'waiting', network, asset: 'token' }),
    keys.paymentQueuePartition({ kind: 'waiting', network, asset: 'native' }),
    keys.custodyDepositQueuePartition(network),
  ];
  for (const pk of partitions) {
    const { Count } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi3',
        KeyConditionExpression: 'gsi3pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        Select: 'COUNT',
        Limit: 1,
      }),
    );
    if ((Count ?? 0) > 0) return true;
  }
  return false;
}

export const dynamoScanCursors: ScanCursorStore = { get: getCursor, move: moveCursor, acquireLease, releaseLease, leaseHeld };
