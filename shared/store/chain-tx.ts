/**
 * Chain-transaction requests, nonce counters, the nonce free-list and the follower lease on the single table.
 *
 * - A request is an aggregate stored as every other (shared/store/aggregate.ts): its state (`stateAttributes`,
 *   type `chain_tx`; amounts, fees and gas as decimal strings inside it, for they are not balances and never added
 *   in place) beside the attributes its queries read (`request_id`, which the open-requests index projects) and a
 *   few for reading the table by hand (network, reference, purpose, tenant, status, creation time). Every save is
 *   a `versionedPut` conditioned on the version read, which the repository alone bumps; a lost race is a
 *   ConflictError. Open requests carry gsi3 keys (`keys.chainTxOpen`), removed when the request is final.
 * - A change's events (`chain_tx.confirmed` / `chain_tx.failed`; `chain_tx.requested` with a creation) are outbox
 *   items in the same transaction (`aggregateOutbox`, natural ids `chain_tx:<request id>:<event type>`, so a
 *   replayed final transition cannot announce twice). A save that announces nothing is one conditioned put.
 * - Nonce allocation is ONE transaction: the request's save (status queued -> allocated, with the nonce) plus
 *   either the deletion of the lowest free nonce (conditioned on its existence) or the counter's increment
 *   (conditioned on the value read). No two requests ever get the same nonce; a lost race re-reads and retries.
 *   The counter starts at the wallet's on-chain nonce the first time a (network, wallet) is used.
 * - A released nonce (request cancelled before signing) becomes a `FREE#` item, written in the same
 *   transaction as the cancellation.
 * Nonce counters, free nonces and leases are not aggregates: plain items, each with its own condition.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ChainTx, ChainTxAttempt, ChainTxChange, ChainTxEffect, ChainTxEvent, MinedTx, TxFees } from '../domain/chain-tx.js';
import { CHAIN_TX, isFinal, transition } from '../domain/chain-tx.js';
import { ConflictError } from '../domain/errors.js';
import type { ChainTxAnnouncement, ChainTxStorePort } from '../usecases/chain-tx/ports.js';
import { aggregateOutbox, commitAggregate, loadState, nextVersion, outboxItems, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { isConditionalCheckFailed, TransactionConditionError, transactWrite } from './transact.js';
import { integer } from './values.js';

type Item = Record<string, unknown>;

/* ---------------------------------------------------------------- the stored state: bigints as decimal strings */

type FeesRecord =
  | { readonly type: 2; readonly maxFeePerGas: string; readonly maxPriorityFeePerGas: string }
  | { readonly type: 0; readonly gasPrice: string }
  | { readonly type: 'tron'; readonly feeLimit: string }
  | { readonly type: 'btc'; readonly feeRate: string; readonly fee: string; readonly change: string };

interface AttemptRecord extends Omit<ChainTxAttempt, 'fees' | 'gasLimit'> {
  readonly fees: FeesRecord;
  readonly gasLimit: string;
}

/** A request as JSON holds it: every bigint (value, gas, fees) a decimal string. */
interface ChainTxRecord extends Omit<ChainTx, 'value' | 'gasLimit' | 'attempts' | 'mined'> {
  readonly value: string;
  readonly gasLimit?: string;
  readonly attempts: readonly AttemptRecord[];
  readonly mined?: Omit<MinedTx, 'gasUsed'> & { readonly gasUsed: string };
}

function feesRecord(fees: TxFees): FeesRecord {
  if (fees.type === 'tron') return { type: 'tron', feeLimit: fees.feeLimit.toString() };
  if (fees.type === 'btc') return { type: 'btc', feeRate: fees.feeRate.toString(), fee: fees.fee.toString(), change: fees.change.toString() };
  return fees.type === 2
    ? { type: 2, maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() }
    : { type: 0, gasPrice: fees.gasPrice.toString() };
}

function feesOf(record: FeesRecord): TxFees {
  if (record.type === 'tron') return { type: 'tron', feeLimit: BigInt(record.feeLimit) };
  if (record.type === 'btc') return { type: 'btc', feeRate: BigInt(record.feeRate), fee: BigInt(record.fee), change: BigInt(record.change) };
  return record.type === 2
    ? { type: 2, maxFeePerGas: BigInt(record.maxFeePerGas), maxPriorityFeePerGas: BigInt(record.maxPriorityFeePerGas) }
    : { type: 0, gasPrice: BigInt(record.gasPrice) };
}

function toRecord(tx: ChainTx): ChainTxRecord {
  const { value, gasLimit, attempts, mined, ...rest } = tx;
  return {
    ...rest,
    value: value.toString(),
    ...(gasLimit === undefined ? {} : { gasLimit: gasLimit.toString() }),
    attempts: attempts.map((a) => ({ ...a, fees: feesRecord(a.fees), gasLimit: a.gasLimit.toString() })),
    ...(mined === undefined ? {} : { mined: { ...mined, gasUsed: mined.gasUsed.toString() } }),
  };
}

function fromRecord(record: ChainTxRecord): ChainTx {
  const { value, gasLimit, attempts, mined, ...rest } = record;
  return {
    ...rest,
    value: BigInt(value),
    ...(gasLimit === undefined ? {} : { gasLimit: BigInt(gasLimit) }),
    attempts: attempts.map((a) => ({ ...a, fees: feesOf(a.fees), gasLimit: BigInt(a.gasLimit) })),
    ...(mined === undefined ? {} : { mined: { ...mined, gasUsed: BigInt(mined.gasUsed) } }),
  };
}

/** The request's item: its state beside the attributes its queries read. */
export function chainTxItem(tx: ChainTx): Item {
  return {
    ...keys.chainTx(tx.network, tx.reference),
    ...(isFinal(tx) ? {} : keys.chainTxOpen(tx.network, tx.createdAt, tx.reference)),
    ...stateAttributes(CHAIN_TX, toRecord(tx)),
    request_id: tx.requestId,
    network: tx.network,
    reference: tx.reference,
    purpose: tx.purpose,
    tenant_id: tx.tenantId,
    status: tx.status,
    created_at: tx.createdAt,
  };
}

export const chainTxOf = (item: Item): ChainTx => fromRecord(stateOf<ChainTxRecord>(item, CHAIN_TX));

/* ---------------------------------------------------------------- requests */

const aggregateOf = (tx: ChainTx) => ({ type: CHAIN_TX, id: tx.requestId, tenantId: tx.tenantId });

/** A request's outbox events as its changes write them (natural ids `chain_tx:<request id>:<event type>`). */
export const chainTxOutboxEvents = (tx: ChainTx, events: readonly ChainTxEvent[], now: Date) => aggregateOutbox(aggregateOf(tx), events, {}, now);

/** A lost race on the request's own put: the domain's conflict error, as commitAggregate reports it. */
const changedMeanwhile = (tx: ChainTx, cause: unknown): ConflictError => {
  const error = new ConflictError(`The ${CHAIN_TX} changed meanwhile; retry.`, { [`${CHAIN_TX}_id`]: tx.requestId });
  return Object.assign(error, { cause });
};

/** One conditioned put (a change that announces and releases nothing): one write, no transaction. */
async function putAlone(tx: ChainTx, put: TransactItem): Promise<void> {
  if (!put.Put) throw new Error('unreachable: versionedPut builds a Put');
  try {
    await db().send(new PutCommand(put.Put));
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw changedMeanwhile(tx, error);
    throw error;
  }
}

/** A released nonce back on the wallet's free-list. */
function effectItem(tx: ChainTx, effect: ChainTxEffect): TransactItem {
  return {
    Put: { TableName: tableName(), Item: { ...keys.nonceFree(tx.network, tx.wallet.address, effect.nonce), nonce: effect.nonce, released_by: tx.requestId } },
  };
}

async function get(requestId: string): Promise<ChainTx | undefined> {
  const i = requestId.indexOf(':');
  if (i <= 0) return undefined;
  return (await loadState(keys.chainTx(requestId.slice(0, i), requestId.slice(i + 1)), CHAIN_TX, chainTxOf)) ?? undefined;
}

/**
 * The writes that create a request with its announcement, for another aggregate's transaction (a pull subscription's
 * charge, written with the period's advance): the put is conditioned on the request being new.
 */
export function chainTxRequestItems(tx: ChainTx, announce: ChainTxAnnouncement): TransactItem[] {
  const stored = nextVersion(tx, null);
  const events = [{ type: announce.eventType, key: announce.eventType, payload: announce.payload }];
  return [versionedPut(chainTxItem(stored), null), ...outboxItems(aggregateOutbox(aggregateOf(stored), events, {}, new Date(stored.createdAt)))];
}

async function create(tx: ChainTx, announce?: ChainTxAnnouncement): Promise<ChainTx | null> {
  const stored = nextVersion(tx, null);
  const put = versionedPut(chainTxItem(stored), null);
  const events = announce ? [{ type: announce.eventType, key: announce.eventType, payload: announce.payload }] : [];
  try {
    if (events.length === 0) await putAlone(stored, put);
    else
      await commitAggregate({
        ...aggregateOf(stored),
        put,
        outbox: aggregateOutbox(aggregateOf(stored), events, {}, new Date(stored.createdAt)),
        now: new Date(stored.createdAt),
      });
    return stored;
  } catch (error) {
    if (error instanceof ConflictError) return null;
    throw error;
  }
}

async function save(previous: ChainTx, change: ChainTxChange): Promise<ChainTx> {
  const stored = nextVersion(change.state, previous.version);
  const put = versionedPut(chainTxItem(stored), previous.version);
  if (change.events.length === 0 && change.effects.length === 0) {
    await putAlone(stored, put);
    return stored;
  }
  const now = new Date(stored.updatedAt);
  await commitAggregate({
    ...aggregateOf(stored),
    put,
    outbox: aggregateOutbox(aggregateOf(stored), change.events, {}, now),
    items: change.effects.map((effect) => effectItem(stored, effect)),
    now,
  });
  return stored;
}

/* ---------------------------------------------------------------- nonces (plain items, not aggregates) */

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

async function allocateNonce(tx: ChainTx, chainNonce: () => Promise<number>, now: Date): Promise<ChainTx> {
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
    const next = nextVersion(transition(tx, { type: 'nonce_allocated', nonce }, now).state, tx.version);
    try {
      // Allocators of one wallet all touch its counter: conflicts are expected, so retry them soon and often.
      await transactWrite([versionedPut(chainTxItem(next), tx.version), nonceItem], {
        maxAttempts: 30,
        sleep: (ms) => sleep(Math.min(ms, 20 + Math.random() * 30)),
      });
      return next;
    } catch (error) {
      if (!(error instanceof TransactionConditionError)) throw error;
      // The request itself moved on: the caller re-reads it.
      if (error.failedIndexes.includes(0)) throw changedMeanwhile(tx, error);
      // Another allocator took this nonce first: read again (with a little jitter under contention).
      if (attempt > 200) throw new Error(`Could not allocate a nonce for ${tx.requestId}`, { cause: error });
      await sleep(Math.random() * Math.min(50, 2 * attempt));
    }
  }
}

/* ---------------------------------------------------------------- the open requests and the follower's lease */

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
  const found = await Promise.all(items.map((item) => get(String(item.request_id))));
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

async function leaseHeld(network: string, now: Date): Promise<boolean> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.chainTxFollowerLease(network), ProjectionExpression: 'expires_at' }));
  return typeof Item?.expires_at === 'number' && Item.expires_at >= now.getTime();
}

/** The nonce counter's next value (tests, wallet health). */
export async function nextNonce(network: string, address: string): Promise<number | undefined> {
  return readCounter(network, address);
}

export const dynamoChainTxStore: ChainTxStorePort = { get, create, save, allocateNonce, listOpen, acquireLease, releaseLease, leaseHeld };
