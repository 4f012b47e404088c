/**
 * Chain-transaction requests, nonce counters, the nonce free-list and the follower lease on the single table.
 *
 * - A request item (`keys.chainTx`) holds the whole request; every save is a Put conditioned on the stored
 *   `version`, so two processors never both move the same request. Open requests carry gsi3 keys
 *   (`keys.chainTxOpen`), removed when the request is final.
 * - Nonce allocation is ONE transaction: the request's save (status queued -> allocated, with the nonce) plus
 *   either the deletion of the lowest free nonce (conditioned on its existence) or the counter's increment
 *   (conditioned on the value read). No two requests ever get the same nonce; a lost race re-reads and retries.
 *   The counter starts at the wallet's on-chain nonce the first time a (network, wallet) is used.
 * - A released nonce (request cancelled before signing) becomes a `FREE#` item, written in the same
 *   transaction as the cancellation.
 * - Outbox events of a transition are written in the same transaction as the request's save.
 * Amounts (value, fees, gas) are stored as decimal strings: they are not balances and never added in place.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ChainTxAnnouncement, ChainTxStorePort } from '../chain/engine/ports.js';
import type { ChainTx, ChainTxAttempt, ChainTxEffect, ChainTxReason, ChainTxStatus, TxFees } from '../chain/engine/state.js';
import { ChainTxVersionConflictError, isFinal, transition } from '../chain/engine/state.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import { emit, outboxPutItem } from './outbox.js';
import type { TransactItem } from './transact.js';
import { isConditionalCheckFailed, TransactionConditionError, transactWrite } from './transact.js';
import { integer } from './values.js';

type Item = Record<string, unknown>;

const str = (v: unknown): string => {
  if (typeof v !== 'string') throw new TypeError('Expected a string in a chain-tx item');
  return v;
};
const optStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function feesToItem(fees: TxFees): Item {
  if (fees.type === 'tron') return { type: 'tron', fee_limit: fees.feeLimit.toString() };
  return fees.type === 2
    ? { type: 2, max_fee_per_gas: fees.maxFeePerGas.toString(), max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString() }
    : { type: 0, gas_price: fees.gasPrice.toString() };
}

function feesFromItem(item: Item): TxFees {
  if (item.type === 'tron') return { type: 'tron', feeLimit: BigInt(str(item.fee_limit)) };
  return integer(item.type) === 2
    ? { type: 2, maxFeePerGas: BigInt(str(item.max_fee_per_gas)), maxPriorityFeePerGas: BigInt(str(item.max_priority_fee_per_gas)) }
    : { type: 0, gasPrice: BigInt(str(item.gas_price)) };
}

export function chainTxToItem(tx: ChainTx): Item {
  return {
    ...keys.chainTx(tx.network, tx.reference),
    ...(isFinal(tx) ? {} : keys.chainTxOpen(tx.network, tx.createdAt, tx.reference)),
    request_id: tx.requestId,
    network: tx.network,
    reference: tx.reference,
    purpose: tx.purpose,
    tenant_id: tx.tenantId,
    key_id: tx.wallet.keyId,
    from: tx.wallet.address,
    to: tx.to,
    data: tx.data,
    value: tx.value.toString(),
    gas_limit: tx.gasLimit?.toString(),
    items: tx.items === undefined ? undefined : [...tx.items],
    status: tx.status,
    reason: tx.reason,
    nonce: tx.nonce,
    attempts: tx.attempts.map((a) => ({
      hash: a.hash,
      raw: a.raw,
      fees: feesToItem(a.fees),
      gas_limit: a.gasLimit.toString(),
      signed_at: a.signedAt,
      expires_at: a.expiresAt,
    })),
    tx_hash: tx.attempts[tx.attempts.length - 1]?.hash,
    sent_at: tx.sentAt,
    mined:
      tx.mined === undefined
        ? undefined
        : { hash: tx.mined.hash, block_number: tx.mined.blockNumber, status: tx.mined.status, gas_used: tx.mined.gasUsed.toString() },
    failure: tx.failure,
    created_at: tx.createdAt,
    updated_at: tx.updatedAt,
    version: tx.version,
  };
}

export function chainTxFromItem(item: Item): ChainTx {
  const attempts = Array.isArray(item.attempts) ? (item.attempts as Item[]) : [];
  const mined = item.mined as Item | undefined;
  return {
    requestId: str(item.request_id),
    network: str(item.network),
    reference: str(item.reference),
    purpose: str(item.purpose),
    tenantId: str(item.tenant_id),
    wallet: { keyId: str(item.key_id), address: str(item.from) },
    to: str(item.to),
    data: str(item.data),
    value: BigInt(str(item.value)),
    gasLimit: item.gas_limit === undefined ? undefined : BigInt(str(item.gas_limit)),
    ...(Array.isArray(item.items) ? { items: (item.items as unknown[]).map(str) } : {}),
    status: str(item.status) as ChainTxStatus,
    reason: optStr(item.reason) as ChainTxReason | undefined,
    nonce: item.nonce === undefined ? undefined : integer(item.nonce),
    attempts: attempts.map((a): ChainTxAttempt => ({
      hash: str(a.hash),
      raw: str(a.raw),
      fees: feesFromItem(a.fees as Item),
      gasLimit: BigInt(str(a.gas_limit)),
      signedAt: str(a.signed_at),
      ...(typeof a.expires_at === 'string' ? { expiresAt: a.expires_at } : {}),
    })),
    sentAt: optStr(item.sent_at),
    mined:
      mined === undefined
        ? undefined
        : {
            hash: str(mined.hash),
            blockNumber: integer(mined.block_number),
            status: integer(mined.status) === 1 ? 1 : 0,
            gasUsed: BigInt(str(mined.gas_used)),
          },
    failure: optStr(item.failure),
    createdAt: str(item.created_at),
    updatedAt: str(item.updated_at),
    version: integer(item.version),
  };
}

function putRequest(next: ChainTx, expectedVersion: number): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: chainTxToItem(next),
      ConditionExpression: 'version = :v',
      ExpressionAttributeValues: { ':v': expectedVersion },
    },
  };
}

function effectItems(tx: ChainTx, effects: readonly ChainTxEffect[], now: Date): TransactItem[] {
  return effects.map((effect): TransactItem => {
    if (effect.kind === 'event') {
      // Natural event id: a replayed final transition cannot announce twice.
      const event = emit(tx.tenantId, effect.type, effect.payload, { now, eventId: `chain_tx:${tx.requestId}:${effect.type}` });
      return outboxPutItem(event);
    }
    return {
      Put: {
        TableName: tableName(),
        Item: { ...keys.nonceFree(tx.network, tx.wallet.address, effect.nonce), nonce: effect.nonce, released_by: tx.requestId },
      },
    };
  });
}

async function get(requestId: string): Promise<ChainTx | undefined> {
  const i = requestId.indexOf(':');
  if (i <= 0) return undefined;
  const out = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.chainTx(requestId.slice(0, i), requestId.slice(i + 1)), ConsistentRead: true }),
  );
  return out.Item ? chainTxFromItem(out.Item) : undefined;
}

async function create(tx: ChainTx, announce?: ChainTxAnnouncement): Promise<boolean> {
  const put: TransactItem = {
    Put: { TableName: tableName(), Item: chainTxToItem(tx), ConditionExpression: 'attribute_not_exists(pk)' },
  };
  const items: TransactItem[] = [put];
  if (announce) {
    items.push(
      outboxPutItem(
        emit(tx.tenantId, announce.eventType, announce.payload, { now: new Date(tx.createdAt), eventId: `chain_tx:${tx.requestId}:${announce.eventType}` }),
      ),
    );
  }
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionError) return false;
    throw error;
  }
}

async function save(next: ChainTx, expectedVersion: number, effects: readonly ChainTxEffect[] = []): Promise<void> {
  const now = new Date(next.updatedAt);
  try {
    if (effects.length === 0) {
      const put = putRequest(next, expectedVersion).Put;
      if (!put) throw new Error('unreachable');
      await db().send(new PutCommand(put));
    } else {
      await transactWrite([putRequest(next, expectedVersion), ...effectItems(next, effects, now)]);
    }
  } catch (error) {
    if (error instanceof TransactionConditionError || isConditionalCheckFailed(error)) {
      throw new ChainTxVersionConflictError(next.requestId, { cause: error });
    }
    throw error;
  }
}

async function lowestFreeNonce(network: string, address: string): Promise<number | undefined> {
  const { pk, skPrefix } = keys.nonceFreePrefix(network, address);
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': pk, ':p': skPrefix },
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const item = out.Items?.[0];
  return item === undefined ? undefined : integer(item.nonce);
}

async function readCounter(network: string, address: string): Promise<number | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.nonceCounter(network, address), ConsistentRead: true }));
  return out.Item === undefined ? undefined : integer(out.Item.next);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function allocateNonce(tx: ChainTx, expectedVersion: number, chainNonce: () => Promise<number>, now: Date): Promise<ChainTx> {
  const { network } = tx;
  const address = tx.wallet.address;
  for (let attempt = 0; ; attempt++) {
    const free = await lowestFreeNonce(network, address);
    let nonceItem: TransactItem;
    let nonce: number;
    if (free !== undefined) {
      nonce = free;
      nonceItem = { Delete: { TableName: tableName(), Key: keys.nonceFree(network, address, free), ConditionExpression: 'attribute_exists(pk)' } };
    } else {
      const stored = await readCounter(network, address);
      nonce = stored ?? (await chainNonce());
      nonceItem = {
        Update: {
          TableName: tableName(),
          Key: keys.nonceCounter(network, address),
          UpdateExpression: 'SET #next = :after, updated_at = :at',
          ConditionExpression: stored === undefined ? 'attribute_not_exists(pk)' : '#next = :before',
          ExpressionAttributeNames: { '#next': 'next' },
          ExpressionAttributeValues: { ':after': nonce + 1, ':at': now.toISOString(), ...(stored === undefined ? {} : { ':before': stored }) },
        },
      };
    }
    const { tx: next } = transition(tx, { type: 'nonce_allocated', nonce }, now);
    try {
      // Allocators of one wallet all touch its counter: conflicts are expected, so retry them soon and often.
      await transactWrite([putRequest(next, expectedVersion), nonceItem], { maxAttempts: 30, sleep: (ms) => sleep(Math.min(ms, 20 + Math.random() * 30)) });
      return next;
    } catch (error) {
      if (!(error instanceof TransactionConditionError)) throw error;
      // The request itself moved on: the caller re-reads it.
      if (error.failedIndexes.includes(0)) throw new ChainTxVersionConflictError(tx.requestId, { cause: error });
      // Another allocator took this nonce first: read again (with a little jitter under contention).
      if (attempt > 200) throw new Error(`Could not allocate a nonce for ${tx.requestId}`, { cause: error });
      await sleep(Math.random() * Math.min(50, 2 * attempt));
    }
  }
}

async function listOpen(network: string, limit = 500): Promise<ChainTx[]> {
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.chainTxOpenPartition(network) },
      ProjectionExpression: 'request_id',
    },
    limit,
  );
  // The index is eventually consistent: read each request itself.
  const found = await Promise.all(items.map((item) => get(str(item.request_id))));
  return found.filter((tx): tx is ChainTx => tx !== undefined && !isFinal(tx));
}

async function acquireLease(network: string, owner: string, now: Date, ttlSeconds: number): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.chainTxFollowerLease(network),
          owner,
          expires_at: now.getTime() + ttlSeconds * 1000,
          ttl: Math.floor(now.getTime() / 1000) + ttlSeconds + 3600,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR #owner = :owner OR expires_at < :now',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner, ':now': now.getTime() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

async function releaseLease(network: string, owner: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.chainTxFollowerLease(network),
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/** The nonce counter's next value (tests, wallet health). */
export async function nextNonce(network: string, address: string): Promise<number | undefined> {
  return readCounter(network, address);
}

export const dynamoChainTxStore: ChainTxStorePort = { get, create, save, allocateNonce, listOpen, acquireLease, releaseLease };
