import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../domain/errors.js';
import type { PaymentLinkState } from '../domain/payment-links.js';
import type { PaymentState } from '../domain/payments.js';
import type { WriteItem } from '../usecases/ports.js';
import type { Page, PaymentLinkRepository } from '../usecases/payment-links/ports.js';
import { loadState, nextVersion, packState, stateOf } from './aggregate.js';
import { batchGet, db, tableName } from './client.js';
import type { Key } from './keys.js';
import { keys, paymentLinkKeys } from './keys.js';
import { PAYMENT_STATE_ATTRIBUTES, paymentFromItem } from './payment-item.js';
import type { TransactItem } from './transact.js';
import { asTransactItem, asWriteItem, TransactionConditionError, transactWrite } from './transact.js';
import { integer } from './values.js';

/**
 * Payment links on the single table (shared/store/keys.ts `paymentLinkKeys`). The link's item holds its state (packed,
 * as every aggregate's) beside two counters that are attributes of their own, `completed_count` and
 * `over_limit_count`, and `max_completions` (absent: no limit): a completing payment moves a counter with an
 * UpdateItem in its own transaction, conditioned on the limit, without reading or rewriting the state; the
 * merchant's changes update the state on condition of its version and leave the counters alone. The state read back
 * takes its counters from the attributes.
 */

type Stored = Record<string, unknown>;
const TYPE = 'payment_link';
const PAGE_MAX = 100;

/** The cursor of a page: the last key it read, as opaque text. */
const cursorOf = (key: Record<string, unknown> | undefined): string | null => (key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null);
function startOf(cursor: string | null): Record<string, unknown> | undefined {
  if (cursor === null) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (key && typeof key === 'object' && !Array.isArray(key) && Object.values(key).every((v) => typeof v === 'string')) return key as Record<string, unknown>;
  } catch {
    // not a cursor of ours: the first page
  }
  return undefined;
}

/** The state as stored: without its counters (attributes of their own). */
const packed = (l: PaymentLinkState) => packState({ ...l, completedCount: 0, overLimitCount: 0 });

function linkFromItem(item: Stored): PaymentLinkState {
  const state = stateOf<PaymentLinkState>(item, TYPE);
  return { ...state, completedCount: integer(item.completed_count ?? 0), overLimitCount: integer(item.over_limit_count ?? 0) };
}

function linkItem(l: PaymentLinkState): Stored {
  return {
    ...paymentLinkKeys.link(l.tenantId, l.id),
    ...paymentLinkKeys.linkList(l.tenantId, l.createdAt, l.id),
    type: TYPE,
    version: l.version,
    state: packed(l),
    tenant_id: l.tenantId,
    link_id: l.id,
    created_at: l.createdAt,
    completed_count: 0,
    over_limit_count: 0,
    ...(l.maxCompletions === null ? {} : { max_completions: l.maxCompletions }),
    ...(l.deactivatedAt === null ? {} : { deactivated_at: l.deactivatedAt }),
  };
}

async function create(link: PaymentLinkState, alsoWrite?: (stored: PaymentLinkState) => readonly WriteItem[]): Promise<PaymentLinkState> {
  const l = nextVersion(link, null);
  const items: TransactItem[] = [
    { Put: { TableName: tableName(), Item: linkItem(l), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Put: {
        TableName: tableName(),
        Item: { ...paymentLinkKeys.linkPage(l.slug), type: 'payment_link_page', tenant_id: l.tenantId, link_id: l.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(alsoWrite?.(l) ?? []).map(asTransactItem),
  ];
  await transactWrite(items);
  return l;
}

const get = (tenantId: string, linkId: string): Promise<PaymentLinkState | null> => loadState(paymentLinkKeys.link(tenantId, linkId), TYPE, linkFromItem);

async function bySlug(slug: string): Promise<PaymentLinkState | null> {
  const page = await loadState(paymentLinkKeys.linkPage(slug), 'payment_link_page', (item) => item);
  return page ? get(String(page.tenant_id), String(page.link_id)) : null;
}

async function save(
  previous: PaymentLinkState,
  next: PaymentLinkState,
  alsoWrite?: (stored: PaymentLinkState) => readonly WriteItem[],
): Promise<PaymentLinkState> {
  const l = nextVersion(next, previous.version);
  const sets = ['#state = :state', '#v = :v1'];
  const values: Record<string, unknown> = { ':state': packed(l), ':v1': l.version, ':v': previous.version };
  const removes: string[] = [];
  let condition = '#v = :v';
  if (l.maxCompletions === null) removes.push('max_completions');
  else {
    sets.push('max_completions = :max');
    values[':max'] = l.maxCompletions;
    // A limit never below what completing payments counted meanwhile.
    condition += ' AND completed_count <= :max';
  }
  if (l.deactivatedAt !== null) {
    sets.push('deactivated_at = :off');
    values[':off'] = l.deactivatedAt;
  }
  const update: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: paymentLinkKeys.link(l.tenantId, l.id),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#state': 'state', '#v': 'version' },
      ExpressionAttributeValues: values,
    },
  };
  try {
    await transactWrite([update, ...(alsoWrite?.(l) ?? []).map(asTransactItem)]);
  } catch (error) {
    if (error instanceof TransactionConditionError && error.failedIndexes.includes(0)) {
      throw new ConflictError('The payment link changed meanwhile; retry.', { payment_link_id: l.id });
    }
    throw error;
  }
  return (await get(l.tenantId, l.id)) ?? l;
}

async function list(tenantId: string, limit: number, after: string | null): Promise<Page<PaymentLinkState>> {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': paymentLinkKeys.linkListPartition(tenantId) },
      ScanIndexForward: false,
      Limit: Math.min(limit, PAGE_MAX),
      ExclusiveStartKey: startOf(after),
    }),
  );
  // The index holds the items whole (its projection is ALL), counters included.
  return { items: (page.Items ?? []).map(linkFromItem), next: cursorOf(page.LastEvaluatedKey) };
}

async function payments(tenantId: string, linkId: string, limit: number, after: string | null): Promise<Page<PaymentState>> {
  const prefix = paymentLinkKeys.linkPaymentPrefix(tenantId, linkId);
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': prefix.pk, ':p': prefix.skPrefix },
      Limit: Math.min(limit, PAGE_MAX),
      ExclusiveStartKey: startOf(after),
    }),
  );
  const wanted: Key[] = (page.Items ?? []).map((e) => keys.payment(tenantId, String(e.payment_id)));
  const found = new Map((await batchGet(wanted, { attributes: PAYMENT_STATE_ATTRIBUTES })).map((item) => [String(item.sk), paymentFromItem(item)]));
  // An entry is written in its payment's own transaction: every one names a payment.
  return { items: wanted.flatMap((k) => found.get(k.sk) ?? []), next: cursorOf(page.LastEvaluatedKey) };
}

function openingItems(link: PaymentLinkState, payment: PaymentState): WriteItem[] {
  const entry: TransactItem = {
    Put: {
      TableName: tableName(),
      Item: { ...paymentLinkKeys.linkPayment(link.tenantId, link.id, payment.createdAt, payment.id), type: 'payment_link_payment', payment_id: payment.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  const open: TransactItem = {
    ConditionCheck: {
      TableName: tableName(),
      Key: paymentLinkKeys.link(link.tenantId, link.id),
      ConditionExpression: 'attribute_not_exists(deactivated_at) AND (attribute_not_exists(max_completions) OR completed_count < max_completions)',
    },
  };
  return [asWriteItem(entry), asWriteItem(open)];
}

function completionItem(link: PaymentLinkState, counted: boolean): WriteItem {
  const update: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: paymentLinkKeys.link(link.tenantId, link.id),
      UpdateExpression: counted ? 'ADD completed_count :one' : 'ADD over_limit_count :one',
      ConditionExpression: counted
        ? 'attribute_exists(pk) AND (attribute_not_exists(max_completions) OR completed_count < max_completions)'
        : 'completed_count >= max_completions',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
  return asWriteItem(update);
}

export const dynamoPaymentLinks: PaymentLinkRepository = { create, get, bySlug, save, list, payments, openingItems, completionItem };
