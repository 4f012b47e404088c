import { paymentTransaction } from '../domain/transactions.js';
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { NETWORK_CODES } from '../domain/currencies.js';
import { DailyLimitError } from '../domain/errors.js';
import { isNegative, sub } from '../domain/money.js';
import type { PaymentChange, PaymentState } from '../domain/payments.js';
import { workQueueOf } from '../domain/payments.js';
import type { PaymentEventRef } from '../domain/payment-events.js';
import { paymentEventOf, paymentEventRef } from '../domain/payment-events.js';
import type { AddressMatch, PaymentCreation, PaymentQuery, PaymentRepository } from '../usecases/payments/ports.js';
import type { OutboxEvent } from './outbox.js';
import { aggregateOutbox, commitAggregate, dayTotalItem, loadState, nextVersion, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { asTransactItem } from './transact.js';
import { paymentCount } from './transactions.js';
import { storedDecimal } from './values.js';

/**
 * Payments on the single table (shared/store/aggregate.ts: the state beside the attributes lists filter and
 * order on; every save conditioned on the version). Indexes (shared/store/keys.ts): gsi1 per tenant by
 * creation, gsi2 per tenant by USD amount, gsi3 the work queue its status puts it in. GSIs project ALL
 * attributes, so lists read the index only.
 *
 * A change's events are written on the payment's item itself (`events`: their references,
 * shared/domain/payment-events.ts), in the same put as the state they describe: the table's stream carries the
 * write to the event router (`paymentEventsOfItem`), so a payment writes no outbox item. A deposit is recorded
 * once by the version condition: the scanner re-reads the payment and skips a deposit it already holds.
 */

type Stored = Record<string, unknown>;
const TYPE = 'payment';

function paymentItem(p: PaymentState, events: readonly PaymentEventRef[]): Stored {
  return {
    ...keys.payment(p.tenantId, p.id),
    ...keys.paymentList(p.tenantId, p.createdAt, p.id),
    ...keys.paymentAmountList(p.tenantId, p.amountUsd, p.id),
    ...keys.paymentQueue(workQueueOf(p), p),
    ...stateAttributes(TYPE, p),
    tenant_id: p.tenantId,
    payment_id: p.id,
    status: p.status,
    currency: p.currency,
    network: p.network,
    token: p.token,
    order_id: p.orderId ?? undefined,
    created_at: p.createdAt,
    amount_usd: storedDecimal(p.amountUsd),
    ...(events.length > 0 ? { events } : {}),
  };
}

const paymentFromItem = (item: Stored): PaymentState => stateOf<PaymentState>(item, TYPE);

/** The deposit-address item the scanner's batched lookup finds the payment by. */
function addressItem(p: PaymentState, family: string): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.depositAddress(family, p.address),
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
  };
}

/** The checkout page's way to the payment: its unguessable id names the tenant and the payment, nothing else. */
function checkoutItem(p: PaymentState): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...keys.checkout(p.checkoutId), type: 'checkout', tenant_id: p.tenantId, payment_id: p.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

const refsOf = (change: PaymentChange): PaymentEventRef[] => change.events.map(paymentEventRef);

async function create(creation: PaymentCreation, now: Date): Promise<PaymentState> {
  const p = nextVersion(creation.change.state, null);
  const items: TransactItem[] = [addressItem(p, creation.family), checkoutItem(p)];
  const limit = creation.dailyLimitUsd;
  const dayIndex = items.length;
  if (limit !== null) {
    const room = sub(limit, p.amountUsd);
    if (isNegative(room)) throw new DailyLimitError('payment', limit);
    items.push(dayTotalItem(keys.paymentDay(p.tenantId, p.createdAt.slice(0, 10)), p.amountUsd, room, now));
  }
  items.push(...(creation.alsoWrite?.(p) ?? []).map(asTransactItem));
  await commitAggregate(
    {
      type: TYPE,
      id: p.id,
      tenantId: p.tenantId,
      put: versionedPut(paymentItem(p, refsOf(creation.change)), null),
      outbox: [],
      items,
      history: { previous: null, next: paymentTransaction(p) },
      now,
    },
    (index) =>
      index === dayIndex && limit !== null
        ? new DailyLimitError('payment', limit)
        : new Error(`The payment ${p.id} could not be created (item ${index} refused).`),
  );
  return p;
}

async function save(previous: PaymentState, change: PaymentChange, now: Date): Promise<PaymentState> {
  const next = nextVersion(change.state, previous.version);
  const credit = change.effects.find((e) => e.kind === 'post_entry');
  await commitAggregate({
    type: TYPE,
    id: next.id,
    tenantId: next.tenantId,
    put: versionedPut(paymentItem(next, refsOf(change)), previous.version),
    outbox: [],
    ...(credit ? { entry: { entryId: credit.entryId, entry: credit.entry } } : {}),
    history: { previous: paymentTransaction(previous), next: paymentTransaction(next) },
    now,
  });
  return next;
}

/** Payments of a tenant from its gsi1 (time) or gsi2 (amount) partition, filtered, up to `take` matches. */
async function list(q: PaymentQuery): Promise<PaymentState[]> {
  const byAmount = q.ordering === 'amount' || q.ordering === '-amount';
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const filters: string[] = [];
  const compare = (attr: string, op: '=' | '>=' | '<=', name: string, value: unknown) => {
    if (value === undefined) return;
    names[`#${attr}`] = attr;
    values[`:${name}`] = value;
    filters.push(`#${attr} ${op} :${name}`);
  };
  compare('status', '=', 'status', q.status);
  compare('currency', '=', 'currency', q.currency);
  compare('network', '=', 'network', q.network);
  compare('token', '=', 'token', q.token);
  compare('order_id', '=', 'order_id', q.orderId);
  compare('created_at', '>=', 'after', q.createdAfter);
  compare('created_at', '<=', 'before', q.createdBefore);
  compare('amount_usd', '>=', 'amin', q.amountMin === undefined ? undefined : storedDecimal(q.amountMin));
  compare('amount_usd', '<=', 'amax', q.amountMax === undefined ? undefined : storedDecimal(q.amountMax));
  const pkName = byAmount ? 'gsi2pk' : 'gsi1pk';
  values[':pk'] = byAmount ? keys.paymentAmountPartition(q.tenantId) : keys.paymentListPartition(q.tenantId);
  const input: QueryCommandInput = {
    TableName: tableName(),
    IndexName: byAmount ? 'gsi2' : 'gsi1',
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

async function due(before: string, limit: number): Promise<PaymentState[]> {
  const partitions = NETWORK_CODES.flatMap((network) =>
    (['native', 'token'] as const).map((asset) => keys.paymentQueuePartition({ kind: 'waiting', network, asset })),
  );
  const pages = await Promise.all(
    partitions.map((pk) =>
      db().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi3',
          KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk <= :before',
          ExpressionAttributeValues: { ':pk': pk, ':before': keys.paymentsDueBy(before) },
          Limit: limit,
        }),
      ),
    ),
  );
  return pages.flatMap((page) => (page.Items ?? []).map(paymentFromItem));
}

/** Every payment in a gsi3 work queue partition, paged. */
async function inQueue(pk: string): Promise<PaymentState[]> {
  const items = await queryAll({ TableName: tableName(), IndexName: 'gsi3', KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': pk } });
  return items.map(paymentFromItem);
}

/** One BatchGetItem per 100 addresses. */
async function matchAddresses(family: string, addresses: readonly string[]): Promise<AddressMatch[]> {
  const unique = [...new Set(addresses)];
  const out: AddressMatch[] = [];
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = {
      [tableName()]: { Keys: unique.slice(i, i + 100).map((a): Record<string, unknown> => ({ ...keys.depositAddress(family, a) })) },
    };
    while (request && Object.keys(request).length > 0) {
      const res = await db().send(new BatchGetCommand({ RequestItems: request }));
      for (const item of res.Responses?.[tableName()] ?? []) {
        out.push(
          item.kind === 'custody'
            ? {
                address: String(item.address),
                tenantId: String(item.tenant_id),
                paymentId: '',
                currency: '',
                custodyAccountId: String(item.custody_account_id),
              }
            : { address: String(item.address), tenantId: String(item.tenant_id), paymentId: String(item.payment_id), currency: String(item.currency) },
        );
      }
      request = res.UnprocessedKeys as typeof request;
    }
  }
  return out;
}

export const dynamoPayments: PaymentRepository = {
  get: (tenantId, paymentId) => loadState<PaymentState>(keys.payment(tenantId, paymentId), TYPE),
  create,
  save,
  list,
  /** Payments the tenant ever created: the all-time statistics counters, kept in each creation's transaction. */
  count: paymentCount,
  due,
  open: (network) => inQueue(keys.paymentQueuePartition({ kind: 'open', network })),
  waitingNative: (network) => inQueue(keys.paymentQueuePartition({ kind: 'waiting', network, asset: 'native' })),
  matchAddresses,
};

/** A payment as stored (tests and the operator's tools read it directly). */
export const getPayment = dynamoPayments.get;

/** Payments a network's scanner follows (the monitor counts sweeps stuck in `sending` among them). */
export const openPayments = dynamoPayments.open;

/** Every waiting payment of a network, native coin and tokens (the local stack's `dev pay`). */
export async function waitingPayments(network: string): Promise<PaymentState[]> {
  const [native, token] = await Promise.all(
    (['native', 'token'] as const).map((asset) => inQueue(keys.paymentQueuePartition({ kind: 'waiting', network, asset }))),
  );
  return [...(native ?? []), ...(token ?? [])];
}

/**
 * The events a payment item's stream image carries (the references its write stored, their data made from the
 * state written with them), as the outbox would have written them; none for an item of another kind or a write
 * without events.
 */
export function paymentEventsOfItem(item: Stored): OutboxEvent[] {
  if (item.type !== TYPE || !Array.isArray(item.events)) return [];
  const p = paymentFromItem(item);
  const events = (item.events as PaymentEventRef[]).map((ref) => paymentEventOf(p, ref));
  return aggregateOutbox({ type: TYPE, id: p.id, tenantId: p.tenantId }, events, { callback_url: p.callbackUrl }, new Date(p.updatedAt));
}
