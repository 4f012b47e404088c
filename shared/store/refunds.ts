import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Decimal } from '../domain/money.js';
import { normalize } from '../domain/money.js';
import type { RefundChange, RefundEffect, RefundState } from '../domain/refunds.js';
import { overRefundable } from '../domain/refunds.js';
import { refundTransaction } from '../domain/transactions.js';
import type { WriteItem } from '../usecases/ports.js';
import type { RefundCreation, RefundRepository, TenantRefundsQuery } from '../usecases/refunds/ports.js';
import { aggregateOutbox, commitAggregate, loadState, nextVersion, outboxItems, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { db, queryAll, tableName } from './client.js';
import { refundKeys as keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { asTransactItem, asWriteItem } from './transact.js';
import { historyItems } from './transactions.js';
import { decimalText, storedDecimal } from './values.js';

/**
 * Refunds on the single table (shared/store/aggregate.ts: the state beside the attributes its indexes read; every save
 * conditioned on the version). Indexes (shared/store/keys.ts): gsi1 per payment by creation, gsi2 per tenant by
 * creation, gsi3 the claim expirer's queue while a refund awaits its address.
 *
 * The payment's refunded total is an item of its own (`REFUNDED#<payment id>`): `refunded`, and `remaining` of the
 * payment's credit. Accepting a refund lowers `remaining` by its amount under the condition `remaining >= amount` (the
 * first refund starts it at the credit), in the same transaction as the refund, its hold, its claim link, its events
 * and its Idempotency-Key record: concurrent refunds of one payment can never add up to more than its credit.
 * Releasing a refund's hold (cancel, expiry, failure) gives the amount back in the transaction that releases it.
 * Every write of a refund carries its transaction-history record (`refundTransaction`, type `refund`) and the
 * statistics' delta; its payout withdrawal writes none of its own.
 */

type Stored = Record<string, unknown>;
const TYPE = 'refund';

function refundItem(r: RefundState): Stored {
  return {
    ...keys.refund(r.tenantId, r.id),
    ...keys.refundOfPayment(r.tenantId, r.paymentId, r.createdAt, r.id),
    ...keys.refundOfTenant(r.tenantId, r.createdAt, r.id),
    ...keys.refundAwaiting(r.status === 'awaiting_address' ? r.claimExpiresAt : null, r.tenantId, r.id),
    ...stateAttributes(TYPE, r),
    tenant_id: r.tenantId,
    refund_id: r.id,
    payment_id: r.paymentId,
    status: r.status,
    currency: r.currency,
    created_at: r.createdAt,
  };
}

const refundFromItem = (item: Stored): RefundState => stateOf<RefundState>(item, TYPE);

/** Variant-A events also go to the payment's callback URL. */
const outboxOf = (r: RefundState, change: RefundChange, now: Date) =>
  aggregateOutbox({ type: TYPE, id: r.id, tenantId: r.tenantId }, change.events, { callback_url: r.callbackUrl }, now);

const entryOf = (change: RefundChange) => {
  const effect = change.effects.find((e) => e.kind === 'post_entry');
  return effect?.kind === 'post_entry' ? { entry: { entryId: effect.entryId, entry: effect.entry } } : {};
};

/** Raises the payment's refunded total by `amount`, conditioned to stay within `base` (the payment's credit). */
function refundedTotalRaise(r: RefundState, base: Decimal): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.paymentRefunded(r.tenantId, r.paymentId),
      UpdateExpression: 'SET #ref = if_not_exists(#ref, :zero) + :a, #rem = if_not_exists(#rem, :base) - :a, #tid = :tid, #pid = :pid',
      ConditionExpression: '(attribute_not_exists(#rem) AND :base >= :a) OR #rem >= :a',
      ExpressionAttributeNames: { '#ref': 'refunded', '#rem': 'remaining', '#tid': 'tenant_id', '#pid': 'payment_id' },
      ExpressionAttributeValues: {
        ':a': storedDecimal(r.amount),
        ':base': storedDecimal(base),
        ':zero': storedDecimal('0'),
        ':tid': r.tenantId,
        ':pid': r.paymentId,
      },
    },
  };
}

/** Gives a released refund's amount back to the payment's refunded total. */
function refundedTotalLower(r: RefundState, amount: Decimal): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.paymentRefunded(r.tenantId, r.paymentId),
      UpdateExpression: 'SET #ref = #ref - :a, #rem = #rem + :a',
      ConditionExpression: '#ref >= :a',
      ExpressionAttributeNames: { '#ref': 'refunded', '#rem': 'remaining' },
      ExpressionAttributeValues: { ':a': storedDecimal(amount) },
    },
  };
}

/** The claim link's lookup item: written with a refund that awaits its address. */
function claimItem(r: RefundState): TransactItem[] {
  if (r.claimToken === null) return [];
  return [
    {
      Put: {
        TableName: tableName(),
        Item: { ...keys.refundClaim(r.claimToken), tenant_id: r.tenantId, refund_id: r.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

async function create(creation: RefundCreation, now: Date): Promise<RefundState> {
  const r = nextVersion(creation.change.state, null);
  // The refunded total first: its refusal is item 0.
  const items: TransactItem[] = [refundedTotalRaise(r, creation.base), ...claimItem(r), ...(creation.alsoWrite?.(r) ?? []).map(asTransactItem)];
  await commitAggregate(
    {
      type: TYPE,
      id: r.id,
      tenantId: r.tenantId,
      put: versionedPut(refundItem(r), null),
      outbox: outboxOf(r, creation.change, now),
      items,
      ...entryOf(creation.change),
      history: { previous: null, next: refundTransaction(r) },
      now,
    },
    async (index) =>
      index === 0
        ? overRefundable(r.amount, await remaining(r.tenantId, r.paymentId), r.currency)
        : new Error(`The refund ${r.id} could not be created (item ${index} refused).`),
  );
  return r;
}

/**
 * The writes that create a refund whose hold is in its payment's credit (posted by the payment's save): the refund,
 * the payment's refunded total, its claim link, its events, `alsoWrite` and its history record, to commit in the
 * payment's transaction. Returns the refund as it will be stored.
 */
function creationItems(creation: RefundCreation, now: Date): { stored: RefundState; items: WriteItem[] } {
  if (creation.change.effects.some((e) => e.kind === 'post_entry')) throw new RangeError('a refund holding its own amount commits through create');
  const r = nextVersion(creation.change.state, null);
  const items: TransactItem[] = [
    versionedPut(refundItem(r), null),
    refundedTotalRaise(r, creation.base),
    ...claimItem(r),
    ...outboxItems(outboxOf(r, creation.change, now)),
    ...(creation.alsoWrite?.(r) ?? []).map(asTransactItem),
    ...historyItems(r.tenantId, null, refundTransaction(r)),
  ];
  return { stored: r, items: items.map(asWriteItem) };
}

async function save(previous: RefundState, change: RefundChange, now: Date, alsoWrite?: (stored: RefundState) => readonly WriteItem[]): Promise<RefundState> {
  const r = nextVersion(change.state, previous.version);
  const unrefund = change.effects.find((e): e is Extract<RefundEffect, { kind: 'unrefund' }> => e.kind === 'unrefund');
  await commitAggregate({
    type: TYPE,
    id: r.id,
    tenantId: r.tenantId,
    put: versionedPut(refundItem(r), previous.version),
    outbox: outboxOf(r, change, now),
    items: [...(unrefund ? [refundedTotalLower(r, unrefund.amount)] : []), ...(alsoWrite?.(r) ?? []).map(asTransactItem)],
    ...entryOf(change),
    history: { previous: refundTransaction(previous), next: refundTransaction(r) },
    now,
  });
  return r;
}

/**
 * The writes of a change that posts no entry (a refund followed by its withdrawal, whose entries move the money):
 * its versioned item, its events, the payment's refunded total where the amount comes back and its history record, to
 * commit in the withdrawal's transaction. Returns the refund as it will be stored.
 */
function changeItems(previous: RefundState, change: RefundChange, now: Date): { stored: RefundState; items: WriteItem[] } {
  if (change.effects.some((e) => e.kind === 'post_entry')) throw new RangeError('a refund change with an entry commits through save');
  const r = nextVersion(change.state, previous.version);
  const unrefund = change.effects.find((e): e is Extract<RefundEffect, { kind: 'unrefund' }> => e.kind === 'unrefund');
  const items: TransactItem[] = [
    versionedPut(refundItem(r), previous.version),
    ...outboxItems(outboxOf(r, change, now)),
    ...(unrefund ? [refundedTotalLower(r, unrefund.amount)] : []),
    ...historyItems(r.tenantId, refundTransaction(previous), refundTransaction(r)),
  ];
  return { stored: r, items: items.map(asWriteItem) };
}

async function totals(tenantId: string, paymentId: string): Promise<{ refunded: Decimal; remaining: Decimal } | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.paymentRefunded(tenantId, paymentId), ConsistentRead: true }));
  return Item ? { refunded: normalize(decimalText(Item.refunded)), remaining: normalize(decimalText(Item.remaining)) } : null;
}

const remaining = async (tenantId: string, paymentId: string): Promise<Decimal | null> => (await totals(tenantId, paymentId))?.remaining ?? null;

async function listByPayment(tenantId: string, paymentId: string): Promise<RefundState[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.refundsOfPaymentPartition(tenantId, paymentId) },
    ScanIndexForward: true,
  });
  return items.map(refundFromItem);
}

/** A page of the tenant's refunds, newest first (gsi2), before the cursor's; the status is filtered as items are read. */
async function listByTenant(tenantId: string, query: TenantRefundsQuery): Promise<{ refunds: RefundState[]; more: boolean }> {
  const before = query.cursor ? keys.refundOfTenant(tenantId, query.cursor.createdAt, query.cursor.id).gsi2sk : null;
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: before === null ? 'gsi2pk = :pk' : 'gsi2pk = :pk AND gsi2sk < :before',
      ...(query.status === undefined ? {} : { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }),
      ExpressionAttributeValues: {
        ':pk': keys.refundsOfTenantPartition(tenantId),
        ...(before === null ? {} : { ':before': before }),
        ...(query.status === undefined ? {} : { ':status': query.status }),
      },
      ScanIndexForward: false,
    },
    query.limit + 1,
  );
  return { refunds: items.slice(0, query.limit).map(refundFromItem), more: items.length > query.limit };
}

async function dueClaims(time: string, limit: number): Promise<RefundState[]> {
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk <= :due',
      ExpressionAttributeValues: { ':pk': keys.refundAwaitingPartition(), ':due': keys.refundsDueBy(time) },
      ScanIndexForward: true,
      Limit: limit,
    },
    limit,
  );
  return items.slice(0, limit).map(refundFromItem);
}

async function claim(token: string): Promise<{ tenantId: string; refundId: string } | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.refundClaim(token) }));
  return Item ? { tenantId: String(Item.tenant_id), refundId: String(Item.refund_id) } : null;
}

/** A payment's refunded total: its refunds accepted and not released ('0' without refunds). */
export const refundedTotal = async (tenantId: string, paymentId: string): Promise<Decimal> => (await totals(tenantId, paymentId))?.refunded ?? '0';

export const dynamoRefunds: RefundRepository = {
  get: (tenantId, refundId) => loadState<RefundState>(keys.refund(tenantId, refundId), TYPE),
  listByPayment,
  listByTenant,
  refunded: refundedTotal,
  create,
  creationItems,
  save,
  changeItems,
  dueClaims,
  claim,
};
