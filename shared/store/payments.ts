import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { findCurrency, NETWORK_CODES } from '../domain/currencies.js';
import { DailyLimitError } from '../domain/errors.js';
import { gt, isNegative, sub } from '../domain/money.js';
import type { PaymentChange, PaymentEvent, PaymentState } from '../domain/payments.js';
import { workQueueOf } from '../domain/payments.js';
import { paymentTransaction } from '../domain/transactions.js';
import type { AddressMatch, PaymentCreation, PaymentFilter, PaymentQuery, PaymentRepository } from '../usecases/payments/ports.js';
import type { WriteItem } from '../usecases/ports.js';
import type { OutboxEvent } from './outbox.js';
import { aggregateOutbox, commitAggregate, loadState, nextVersion, versionedPut } from './aggregate.js';
import { batchGet, db, queryAll, tableName } from './client.js';
import { keys, type Key } from './keys.js';
import { PAYMENT_STATE_ATTRIBUTES, paymentFromItem, paymentStateAttributes } from './payment-item.js';
import type { TransactItem } from './transact.js';
import { asTransactItem } from './transact.js';
import { allTimeSums, paymentCount } from './transactions.js';
import { dayTotalUsd, paymentsTotalItem } from './usage.js';
import { storedDecimal } from './values.js';

/**
 * Payments on the single table (shared/store/aggregate.ts: every save conditioned on the version). Two items:
 * - the payment itself: its state, deflated against the payment type's dictionary (shared/store/payment-item.ts),
 *   and its work queue on gsi3 while it has one. It stays within 1 KB, so each save costs one write unit on the
 *   table and one on gsi3;
 * - its list entry, written with the payment: the per-tenant lists (gsi1 by time, gsi2 by USD amount) and the
 *   filters that do not follow the payment's progress (currency, network, token, creation time, USD amount, and the
 *   order id, rewritten by the edit that changes it). A status change touches neither list index; a list reads
 *   entries, then the payments they name in one BatchGetItem per 100, and filters the status on the states.
 *
 * A change's events go in one outbox item written in the change's own transaction (shared/store/outbox.ts), named
 * by their natural ids (`payment:<id>:<key>`), at the time the change updated the payment. A deposit is recorded
 * once by the version condition: the scanner re-reads the payment and skips a deposit it already holds.
 */

type Stored = Record<string, unknown>;
const TYPE = 'payment';
const ENTRY = 'payment_entry';

function paymentItem(p: PaymentState): Stored {
  return { ...keys.payment(p.tenantId, p.id), ...keys.paymentQueue(workQueueOf(p), p), ...paymentStateAttributes(p) };
}

/** The outbox events of a change saved as `p`: each with its natural id, its payload carrying the callback URL. */
export const paymentOutbox = (p: PaymentState, events: readonly PaymentEvent[]): OutboxEvent[] =>
  aggregateOutbox({ type: TYPE, id: p.id, tenantId: p.tenantId }, events, { callback_url: p.callbackUrl }, new Date(p.updatedAt));

/** The list entry: what a list filters on server-side (all fixed at the creation but the order id), under the two list indexes. */
function entryItem(p: PaymentState): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.paymentEntry(p.tenantId, p.id),
        ...keys.paymentList(p.tenantId, p.createdAt, p.id),
        ...keys.paymentAmountList(p.tenantId, p.amountUsd, p.id),
        type: ENTRY,
        currency: p.currency,
        network: p.network,
        token: p.token,
        order_id: p.orderId ?? undefined,
        created_at: p.createdAt,
        amount_usd: storedDecimal(p.amountUsd),
      },
    },
  };
}

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

async function create(creation: PaymentCreation, now: Date): Promise<PaymentState> {
  const p = nextVersion(creation.change.state, null);
  const items: TransactItem[] = [addressItem(p, creation.family), checkoutItem(p), entryItem(p)];
  const limit = creation.dailyLimitUsd;
  const total = limit === null ? undefined : { amountUsd: p.amountUsd, roomUsd: sub(limit, p.amountUsd) };
  if (limit !== null && total && isNegative(total.roomUsd)) throw new DailyLimitError('payment', limit);
  // The tenant's usage item of the day: the request's count and the day's total in one update, or the total alone.
  const dayIndex = items.length;
  const day = creation.count ? asTransactItem(creation.count.countItem(total)) : total ? paymentsTotalItem(p.tenantId, now, total) : null;
  if (day) items.push(day);
  items.push(...(creation.alsoWrite?.(p) ?? []).map(asTransactItem));
  // Refused by the day's item: past the daily limit, or (a count's condition) past a rate limit, which the caller's
  // count afterwards tells (shared/http/rate-limit.ts); the day's total read says which.
  const refusedDay = async (): Promise<Error> =>
    limit !== null && total && (!creation.count || gt(await dayTotalUsd(p.tenantId, now), total.roomUsd))
      ? new DailyLimitError('payment', limit)
      : new Error(`The payment ${p.id} was not created: its request is past a rate limit.`);
  await commitAggregate(
    {
      type: TYPE,
      id: p.id,
      tenantId: p.tenantId,
      put: versionedPut(paymentItem(p), null),
      outbox: paymentOutbox(p, creation.change.events),
      items,
      history: { previous: null, next: paymentTransaction(p) },
      now,
    },
    (index) => (index === dayIndex && day ? refusedDay() : new Error(`The payment ${p.id} could not be created (item ${index} refused).`)),
  );
  return p;
}

async function save(previous: PaymentState, change: PaymentChange, now: Date, alsoWrite: readonly WriteItem[] = []): Promise<PaymentState> {
  const next = nextVersion(change.state, previous.version);
  const credit = change.effects.find((e) => e.kind === 'post_entry');
  await commitAggregate({
    type: TYPE,
    id: next.id,
    tenantId: next.tenantId,
    put: versionedPut(paymentItem(next), previous.version),
    // Of what the list entry holds, only the order id can change (an edit while the payment is open).
    items: [...(next.orderId !== previous.orderId ? [entryItem(next)] : []), ...alsoWrite.map(asTransactItem)],
    outbox: paymentOutbox(next, change.events),
    ...(credit ? { entry: { entryId: credit.entryId, entry: credit.entry } } : {}),
    history: { previous: paymentTransaction(previous), next: paymentTransaction(next) },
    now,
  });
  return next;
}

/** The list query of a filter: a tenant's gsi1 (time) or gsi2 (amount) partition, all but the status filtered there. */
function entryQuery(q: PaymentFilter, ordering: PaymentQuery['ordering']): QueryCommandInput {
  const byAmount = ordering === 'amount' || ordering === '-amount';
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const filters: string[] = [];
  const compare = (attr: string, op: '=' | '>=' | '<=', name: string, value: unknown) => {
    if (value === undefined) return;
    names[`#${attr}`] = attr;
    values[`:${name}`] = value;
    filters.push(`#${attr} ${op} :${name}`);
  };
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
  return {
    TableName: tableName(),
    IndexName: byAmount ? 'gsi2' : 'gsi1',
    KeyConditionExpression: `${pkName} = :pk`,
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ScanIndexForward: !ordering.startsWith('-'),
  };
}

/** The payments `entries` name, in their order: one BatchGetItem per 100. */
async function paymentsOf(entries: readonly Stored[]): Promise<PaymentState[]> {
  const keyOf = (e: Stored) => keys.paymentOfEntry(e as unknown as Key);
  const wanted = entries.map(keyOf).filter((k): k is Key => k !== null);
  const found = new Map((await batchGet(wanted, { attributes: PAYMENT_STATE_ATTRIBUTES })).map((item) => [String(item.sk), item]));
  // An entry is written in its payment's own transaction: one without its payment is not a payment.
  return entries.flatMap((e) => {
    const item = found.get(keyOf(e)?.sk ?? '');
    return item ? [paymentFromItem(item)] : [];
  });
}

/**
 * The payments matching `q`, in its order, passing over `skip` matches and taking up to `take`. Without a status
 * filter every entry the query returns is a match, so those passed over are never read; with one, the states are
 * read a page of entries at a time, no more than the matches still wanted could need.
 */
async function list(q: PaymentQuery): Promise<PaymentState[]> {
  const input = entryQuery(q, q.ordering);
  const filtered = input.FilterExpression !== undefined;
  let skip = q.skip ?? 0;
  const out: PaymentState[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const wanted = skip + q.take - out.length;
    const page = await db().send(
      new QueryCommand({ ...input, ExclusiveStartKey: start, ...(filtered ? {} : { Limit: Math.min(Math.max(wanted, 25), 1000) }) }),
    );
    let entries = page.Items ?? [];
    start = page.LastEvaluatedKey;
    if (q.status === undefined) {
      const passed = Math.min(skip, entries.length);
      skip -= passed;
      entries = entries.slice(passed, passed + q.take - out.length);
      out.push(...(await paymentsOf(entries)));
      continue;
    }
    for (let i = 0; i < entries.length && out.length < q.take;) {
      const chunk = entries.slice(i, i + Math.min(100, Math.max(25, 2 * (skip + q.take - out.length))));
      i += chunk.length;
      for (const p of await paymentsOf(chunk)) {
        if (p.status !== q.status || out.length === q.take) continue;
        if (skip > 0) skip--;
        else out.push(p);
      }
    }
  } while (start && out.length < q.take);
  return out;
}

/** Whether a filter names only what the all-time statistics counters are kept by (status and currency). */
const countedByCounters = (f: PaymentFilter): boolean => [f.orderId, f.createdAfter, f.createdBefore, f.amountMin, f.amountMax].every((v) => v === undefined);

/**
 * How many payments match: from the all-time statistics counters (`n|payment|<status>|<currency>`, kept in every
 * change's transaction) when the filter is by status, currency, network or token only; else by reading the entries,
 * and the states too when the status is filtered, up to `bound`.
 */
async function countMatching(f: PaymentFilter, bound: number): Promise<number> {
  if (countedByCounters(f)) {
    const sums = await allTimeSums(f.tenantId);
    let n = 0;
    for (const [name, value] of Object.entries(sums)) {
      const [kind, type, status, code] = name.split('|');
      if (kind !== 'n' || type !== 'payment' || code === undefined) continue;
      const currency = findCurrency(code);
      if (f.status !== undefined && status !== f.status) continue;
      if (f.currency !== undefined && code !== f.currency) continue;
      if (f.network !== undefined && currency?.network !== f.network) continue;
      if (f.token !== undefined && currency?.token !== f.token) continue;
      n += Number(value);
    }
    return Math.min(n, bound);
  }
  if (f.status !== undefined) return (await list({ ...f, ordering: '-created_at', take: bound })).length;
  const input = entryQuery(f, '-created_at');
  let n = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, Select: 'COUNT', ExclusiveStartKey: start }));
    n += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start && n < bound);
  return Math.min(n, bound);
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
  const items = await batchGet(unique.map((a) => keys.depositAddress(family, a)));
  return items.map((item) =>
    item.kind === 'custody'
      ? { address: String(item.address), tenantId: String(item.tenant_id), paymentId: '', currency: '', custodyAccountId: String(item.custody_account_id) }
      : { address: String(item.address), tenantId: String(item.tenant_id), paymentId: String(item.payment_id), currency: String(item.currency) },
  );
}

export const dynamoPayments: PaymentRepository = {
  get: (tenantId, paymentId) => loadState(keys.payment(tenantId, paymentId), TYPE, paymentFromItem),
  create,
  save,
  list,
  /** Payments the tenant ever created: the all-time statistics counters, kept in each creation's transaction. */
  count: paymentCount,
  countMatching,
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
