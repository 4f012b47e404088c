import { randomInt } from 'node:crypto';
import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { tronAddressToEvmHex } from '../chain/tron/create2.js';
import { findCurrency, NETWORK_CODES } from '../domain/currencies.js';
import { ConflictError, ValidationError } from '../domain/errors.js';
import type { Decimal } from '../domain/money.js';
import { sub, isNegative } from '../domain/money.js';
import type { PaymentEvent, PaymentState, PaymentStatus } from '../domain/payments.js';
import { amountSortKey } from '../domain/payments.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { OutboxEvent } from './outbox.js';
import { outboxEvent, outboxPutItem } from './outbox.js';
import type { TransactItem } from './transact.js';
import { TransactionConditionError, transactWrite } from './transact.js';
import { integer, storedDecimal } from './values.js';

/**
 * Payments on the single table. The record is kept whole as JSON text (`state`: every amount is a decimal
 * string inside it, so nothing passes through a float) next to the attributes that lists filter and order on.
 * Every save conditions on `version` (optimistic lock) and writes the payment's outbox events in the same
 * transaction. GSIs project ALL attributes, so lists read the index only. Indexes (shared/store/keys.ts): gsi1 per tenant by creation, gsi2 per tenant by USD amount,
 * gsi3 the work queue the status puts it in (waiting by expiry, or the network's open payments).
 */

type Stored = Record<string, unknown>;

/** Shards of the per-tenant payment counter. */
const COUNTER_SHARDS = 8;

/** The address as chain logs show it: EVM hex, lowercase (a TRON base58 address becomes its 20-byte hex). */
export const addressKey = (family: string, address: string): string => (family === 'tron' ? tronAddressToEvmHex(address) : address).toLowerCase();

const kindOf = (currency: string): 'native' | 'token' => (findCurrency(currency)?.native ? 'native' : 'token');

function queueKeys(p: PaymentState): Record<string, string> {
  if (p.status === 'waiting') return keys.paymentExpiryQueue(p.network, kindOf(p.currency), p.expiryTime, p.tenantId, p.id);
  if (p.status === 'confirming' || p.status === 'confirmed' || p.status === 'sending' || p.status === 'partially_paid') {
    return keys.paymentOpenQueue(p.network, p.createdAt, p.tenantId, p.id);
  }
  return {};
}

export function paymentItem(p: PaymentState): Stored {
  return {
    ...keys.payment(p.tenantId, p.id),
    ...keys.paymentList(p.tenantId, p.createdAt, p.id),
    ...keys.paymentAmountList(p.tenantId, amountSortKey(p.amountUsd), p.id),
    ...queueKeys(p),
    type: 'payment',
    tenant_id: p.tenantId,
    payment_id: p.id,
    status: p.status,
    currency: p.currency,
    network: p.network,
    token: p.token,
    order_id: p.orderId ?? undefined,
    created_at: p.createdAt,
    amount_usd: storedDecimal(p.amountUsd),
    version: p.version,
    state: JSON.stringify(p),
  };
}

export function paymentFromItem(item: Stored): PaymentState {
  if (typeof item.state !== 'string') throw new TypeError('Not a payment item');
  return JSON.parse(item.state) as PaymentState;
}

/** The outbox events of a transition, with natural ids (a replayed change writes the same ids). */
export function paymentOutbox(p: PaymentState, events: readonly PaymentEvent[], now: Date): OutboxEvent[] {
  return events.map((e) => outboxEvent(p.tenantId, e.type, { ...e.payload, callback_url: p.callbackUrl }, { now, eventId: `payment:${p.id}:${e.key}` }));
}

/** Put of the new state, conditioned on the version read (`expected`), with the version incremented. */
export function savePaymentItem(next: PaymentState, expectedVersion: number | null): TransactItem {
  const item = paymentItem(next);
  return {
    Put: {
      TableName: tableName(),
      Item: item,
      ...(expectedVersion === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': expectedVersion } }),
    },
  };
}

export interface CreatePaymentWrite {
  readonly payment: PaymentState;
  readonly family: string;
  readonly events: readonly PaymentEvent[];
  readonly now: Date;
  /** Tenant's daily limit in USD (null: none); the day's total is kept in the same transaction. */
  readonly dailyLimitUsd: Decimal | null;
  readonly extraItems?: readonly TransactItem[];
}

/**
 * Creates a payment in one transaction: the record, its deposit-address item, the tenant's payment counter,
 * the day's total (conditioned by the daily limit), the creation events and the caller's items (the
 * idempotency record).
 */
export async function insertPayment(input: CreatePaymentWrite): Promise<void> {
  const p = input.payment;
  const day = p.createdAt.slice(0, 10);
  const items: TransactItem[] = [
    savePaymentItem(p, null),
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.depositAddress(input.family, addressKey(input.family, p.address)),
          type: 'deposit_address',
          tenant_id: p.tenantId,
          payment_id: p.id,
          currency: p.currency,
          network: p.network,
          address: p.address,
          salt: p.salt,
          created_at: p.createdAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: keys.paymentCounter(p.tenantId, randomInt(COUNTER_SHARDS)),
        UpdateExpression: 'ADD #c :one',
        ExpressionAttributeNames: { '#c': 'count' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  ];
  const dayIndex = items.length;
  if (input.dailyLimitUsd !== null) {
    const room = sub(input.dailyLimitUsd, p.amountUsd);
    if (isNegative(room)) throw dailyLimitError(input.dailyLimitUsd);
    items.push({
      Update: {
        TableName: tableName(),
        Key: keys.paymentDay(p.tenantId, day),
        UpdateExpression: 'ADD #t :a SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#t) OR #t <= :room',
        ExpressionAttributeNames: { '#t': 'total_usd', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':a': storedDecimal(p.amountUsd), ':room': storedDecimal(room), ':ttl': Math.floor(input.now.getTime() / 1000) + 3 * 86400 },
      },
    });
  }
  items.push(...paymentOutbox(p, input.events, input.now).map(outboxPutItem), ...(input.extraItems ?? []));
  try {
    await transactWrite(items);
  } catch (error) {
    if (error instanceof TransactionConditionError && input.dailyLimitUsd !== null && error.failedIndexes.includes(dayIndex)) {
      throw dailyLimitError(input.dailyLimitUsd);
    }
    throw error;
  }
}

const dailyLimitError = (limit: Decimal) =>
  new ValidationError({ amount: [`The payment would exceed the daily payment limit of ${limit} USD.`] }, 'The daily payment limit is reached.');

export async function getPayment(tenantId: string, paymentId: string): Promise<PaymentState | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.payment(tenantId, paymentId), ConsistentRead: true }));
  return Item ? paymentFromItem(Item) : null;
}

/** Saves a transition: the new state (conditioned on the old version) and its outbox events, plus extra items. */
export async function savePayment(
  previous: PaymentState,
  next: PaymentState,
  events: readonly PaymentEvent[],
  now: Date,
  extraItems: readonly TransactItem[] = [],
): Promise<PaymentState> {
  const saved = { ...next, version: previous.version + 1 };
  try {
    await transactWrite([savePaymentItem(saved, previous.version), ...paymentOutbox(saved, events, now).map(outboxPutItem), ...extraItems]);
  } catch (error) {
    if (error instanceof TransactionConditionError && error.failedIndexes.includes(0)) {
      throw new ConflictError('The payment changed meanwhile; retry.', { transaction_id: previous.id });
    }
    throw error;
  }
  return saved;
}

/** Payment counter of a tenant (every payment ever created): the sum of its shards. */
export async function paymentCount(tenantId: string): Promise<number> {
  const { pk, skPrefix } = keys.paymentCounterPrefix(tenantId);
  const { Items } = await db().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': pk, ':p': skPrefix }, ConsistentRead: true }),
  );
  return (Items ?? []).reduce((n, i) => n + integer(i.count), 0);
}

export interface PaymentQuery {
  readonly tenantId: string;
  readonly ordering: 'created_at' | '-created_at' | 'amount' | '-amount';
  readonly status?: PaymentStatus;
  readonly currency?: string;
  readonly network?: string;
  readonly token?: string;
  readonly orderId?: string;
  readonly createdAfter?: string;
  readonly createdBefore?: string;
  readonly amountMin?: Decimal;
  readonly amountMax?: Decimal;
  /** Stop after this many matches (offset + page size + 1). */
  readonly take: number;
}

export const hasFilters = (q: PaymentQuery): boolean =>
  [q.status, q.currency, q.network, q.token, q.orderId, q.createdAfter, q.createdBefore, q.amountMin, q.amountMax].some((v) => v !== undefined);

/**
 * Payments of a tenant from its gsi1 (time) or gsi2 (amount) partition, filtered, up to `take` matches.
 * A Query per tenant partition, never a Scan.
 */
export async function queryPayments(q: PaymentQuery): Promise<PaymentState[]> {
  const byAmount = q.ordering === 'amount' || q.ordering === '-amount';
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const filters: string[] = [];
  const eq = (attr: string, value: string | undefined) => {
    if (value === undefined) return;
    names[`#${attr}`] = attr;
    values[`:${attr}`] = value;
    filters.push(`#${attr} = :${attr}`);
  };
  eq('status', q.status);
  eq('currency', q.currency);
  eq('network', q.network);
  eq('token', q.token);
  eq('order_id', q.orderId);
  if (q.createdAfter !== undefined) {
    names['#ca'] = 'created_at';
    values[':after'] = q.createdAfter;
    filters.push('#ca >= :after');
  }
  if (q.createdBefore !== undefined) {
    names['#ca'] = 'created_at';
    values[':before'] = q.createdBefore;
    filters.push('#ca <= :before');
  }
  if (q.amountMin !== undefined) {
    names['#au'] = 'amount_usd';
    values[':amin'] = storedDecimal(q.amountMin);
    filters.push('#au >= :amin');
  }
  if (q.amountMax !== undefined) {
    names['#au'] = 'amount_usd';
    values[':amax'] = storedDecimal(q.amountMax);
    filters.push('#au <= :amax');
  }
  const index = byAmount ? 'gsi2' : 'gsi1';
  const pkName = byAmount ? 'gsi2pk' : 'gsi1pk';
  values[':pk'] = byAmount ? keys.paymentAmountPartition(q.tenantId) : keys.paymentListPartition(q.tenantId);
  const input: QueryCommandInput = {
    TableName: tableName(),
    IndexName: index,
    KeyConditionExpression: `${pkName} = :pk`,
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ScanIndexForward: !q.ordering.startsWith('-'),
  };
  const out: PaymentState[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: start, Limit: Math.max(q.take, 25) }));
    out.push(...(page.Items ?? []).map(paymentFromItem));
    start = page.LastEvaluatedKey;
  } while (start && out.length < q.take);
  return out.slice(0, q.take);
}

/** Waiting payments whose expiry is at or before `before` (the expirer's queues), up to `limit` per partition. */
export async function duePayments(before: string, limit: number): Promise<PaymentState[]> {
  const partitions = NETWORK_CODES.flatMap((n) => [keys.paymentExpiryPartition(n, 'native'), keys.paymentExpiryPartition(n, 'token')]);
  const pages = await Promise.all(
    partitions.map((pk) =>
      db().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi3',
          KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk <= :before',
          ExpressionAttributeValues: { ':pk': pk, ':before': `${before}#~` },
          Limit: limit,
        }),
      ),
    ),
  );
  return pages.flatMap((page) => (page.Items ?? []).map(paymentFromItem));
}

/** Waiting payments (any expiry) in a work queue partition of gsi3: all items, paged. */
async function queuePayments(pk: string): Promise<PaymentState[]> {
  const items = await queryAll({ TableName: tableName(), IndexName: 'gsi3', KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': pk } });
  return items.map(paymentFromItem);
}

/** Payments a network's scanner follows (confirming, partially paid, confirmed, sending). */
export const openPayments = (network: string): Promise<PaymentState[]> => queuePayments(keys.paymentOpenPartition(network));
/** Payments of a network waiting in its native coin (the scanner's balance check). */
export const waitingNativePayments = (network: string): Promise<PaymentState[]> => queuePayments(keys.paymentExpiryPartition(network, 'native'));
/** Every waiting payment of a network (native coin and tokens). */
export async function waitingPayments(network: string): Promise<PaymentState[]> {
  const [native, token] = await Promise.all([queuePayments(keys.paymentExpiryPartition(network, 'native')), queuePayments(keys.paymentExpiryPartition(network, 'token'))]);
  return [...native, ...token];
}

export interface AddressMatch {
  readonly address: string;
  readonly tenantId: string;
  readonly paymentId: string;
  readonly currency: string;
}

/** Which of these addresses are deposit addresses: one BatchGetItem per 100 addresses. */
export async function matchAddresses(family: string, addresses: readonly string[]): Promise<AddressMatch[]> {
  const unique = [...new Set(addresses.map((a) => a.toLowerCase()))];
  const out: AddressMatch[] = [];
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = {
      [tableName()]: { Keys: unique.slice(i, i + 100).map((a): Record<string, unknown> => ({ ...keys.depositAddress(family, a) })) },
    };
    while (request && Object.keys(request).length > 0) {
      const res = await db().send(new BatchGetCommand({ RequestItems: request }));
      for (const item of res.Responses?.[tableName()] ?? []) {
        out.push({ address: String(item.address), tenantId: String(item.tenant_id), paymentId: String(item.payment_id), currency: String(item.currency) });
      }
      request = res.UnprocessedKeys as typeof request;
    }
  }
  return out;
}
