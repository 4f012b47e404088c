import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { isConditionalCheckFailed } from './transact.js';
import { integer } from './values.js';

/**
 * Idempotency records. A request first claims its key with a short lock (`in_progress`); the guarded
 * change then completes the record in the SAME TransactWriteItems that makes the change, storing the
 * answer to replay, so money can never move without its record. A lock left by a crashed request
 * expires after `lockSeconds`; TTL deletes records late, so every read checks `expires_at` itself.
 */

export type ClaimOutcome =
  | { readonly kind: 'claimed'; readonly lockId: string }
  | { readonly kind: 'replay'; readonly response: string }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'mismatch' };

export interface ClaimInput {
  readonly tenantId: string;
  readonly key: string;
  readonly requestHash: string;
  readonly lockId: string;
  readonly nowSeconds: number;
  readonly lockSeconds: number;
  readonly ttlSeconds: number;
}

export async function claimIdempotencyKey(input: ClaimInput): Promise<ClaimOutcome> {
  const { tenantId, key, requestHash, lockId, nowSeconds } = input;
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.idempotency(tenantId, key),
          type: 'idempotency',
          status: 'in_progress',
          request_hash: requestHash,
          lock_id: lockId,
          lock_expires_at: nowSeconds + input.lockSeconds,
          expires_at: nowSeconds + input.ttlSeconds,
          ttl: nowSeconds + input.ttlSeconds,
        },
        // Free, expired, or an abandoned lock of the same request.
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now OR (#s = :progress AND lock_expires_at < :now AND request_hash = :h)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':now': nowSeconds, ':progress': 'in_progress', ':h': requestHash },
      }),
    );
    return { kind: 'claimed', lockId };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.idempotency(tenantId, key), ConsistentRead: true }));
  if (!Item || integer(Item.expires_at) < nowSeconds) return claimIdempotencyKey(input);
  if (Item.request_hash !== requestHash) return { kind: 'mismatch' };
  if (Item.status === 'completed') return { kind: 'replay', response: Item.response as string };
  return { kind: 'in_progress' };
}

/** The transaction item that completes a claimed key with the answer to replay. */
export function completeIdempotencyItem(tenantId: string, key: string, lockId: string, response: string, nowSeconds: number, ttlSeconds: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.idempotency(tenantId, key),
      UpdateExpression: 'SET #s = :done, #r = :r, expires_at = :exp, #ttl = :exp REMOVE lock_id, lock_expires_at',
      ConditionExpression: 'lock_id = :lock AND #s = :progress',
      ExpressionAttributeNames: { '#s': 'status', '#r': 'response', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':done': 'completed',
        ':r': response,
        ':exp': nowSeconds + ttlSeconds,
        ':lock': lockId,
        ':progress': 'in_progress',
      },
    },
  };
}

/** Frees a key whose request failed before changing anything, so the client may retry it. */
export async function releaseIdempotencyKey(tenantId: string, key: string, lockId: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.idempotency(tenantId, key),
        ConditionExpression: 'lock_id = :lock',
        ExpressionAttributeValues: { ':lock': lockId },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
