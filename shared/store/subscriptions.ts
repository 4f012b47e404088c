import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CycleRecord, SubscriptionChange, SubscriptionState } from '../domain/subscriptions.js';
import { nextActionAt } from '../domain/subscriptions.js';
import type { WriteItem } from '../usecases/ports.js';
import type { SubscriptionRepository, TenantClocks } from '../usecases/subscriptions/ports.js';
import { aggregateOutbox, commitAggregate, nextVersion, outboxItems, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { db, queryAll, tableName } from './client.js';
import { subscriptionKeys as keys } from './keys.js';
import { listPage } from './plans.js';
import type { TransactItem } from './transact.js';
import { asTransactItem, asWriteItem } from './transact.js';

/**
 * Subscriptions on the single table (issue 30). The subscription item holds its state beside gsi1 (the tenant's list)
 * and gsi3 (`SUBS#DUE`, keyed by its next action's time while it has one: the advancer's whole read when nothing is
 * due is one empty query). Each period's cycle is an item of its own keyed by the period (`SUBCYCLE#<sub>#<n>`),
 * created under `attribute_not_exists` in the transaction that creates the period's payment and advances the
 * subscription (conditioned on its version): two advancers of one period cannot both commit.
 *
 * The version is read from the item's attribute, not the state: a completing payment moves it (`subscriptionCallInItem`, through the payments' `subscriptionCallIn` port) without
 * rewriting the state, so an advance that read the subscription before is refused and reads again.
 */

type Stored = Record<string, unknown>;
const TYPE = 'subscription';

function subscriptionItem(s: SubscriptionState): Stored {
  return {
    ...keys.subscription(s.tenantId, s.id),
    ...keys.subscriptionOfTenant(s.tenantId, s.createdAt, s.id),
    ...keys.subscriptionDue(nextActionAt(s), s.tenantId, s.id),
    ...stateAttributes(TYPE, s),
    tenant_id: s.tenantId,
    subscription_id: s.id,
    status: s.status,
  };
}

const fromItem = (item: Stored): SubscriptionState => ({ ...stateOf<SubscriptionState>(item, TYPE), version: Number(item.version) });

function cycleItem(c: CycleRecord, created: boolean): TransactItem {
  const Item = { ...keys.cycle(c.tenantId, c.subscriptionId, c.index), type: 'subscription_cycle', tenant_id: c.tenantId, record: JSON.stringify(c) };
  return { Put: { TableName: tableName(), Item, ...(created ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}) } };
}

function writes(previous: SubscriptionState | null, change: SubscriptionChange, now: Date): { stored: SubscriptionState; items: TransactItem[] } {
  if (change.credit) throw new Error("a credited change commits alone (save), not in another aggregate's transaction");
  const s = nextVersion(change.state, previous?.version ?? null);
  const outbox = aggregateOutbox({ type: TYPE, id: s.id, tenantId: s.tenantId }, change.events, {}, now);
  const items = [
    versionedPut(subscriptionItem(s), previous?.version ?? null),
    ...(change.cycle ? [cycleItem(change.cycle.record, change.cycle.created)] : []),
    ...outboxItems(outbox),
  ];
  return { stored: s, items };
}

async function save(
  previous: SubscriptionState | null,
  change: SubscriptionChange,
  now: Date,
  alsoWrite?: (stored: SubscriptionState) => readonly WriteItem[],
): Promise<SubscriptionState> {
  const s = nextVersion(change.state, previous?.version ?? null);
  const outbox = aggregateOutbox({ type: TYPE, id: s.id, tenantId: s.tenantId }, change.events, {}, now);
  await commitAggregate({
    type: TYPE,
    id: s.id,
    tenantId: s.tenantId,
    put: versionedPut(subscriptionItem(s), previous?.version ?? null),
    outbox,
    items: [...(change.cycle ? [cycleItem(change.cycle.record, change.cycle.created)] : []), ...(alsoWrite?.(s) ?? []).map(asTransactItem)],
    // A pull cycle's charge credits the merchant in the same transaction (balances conditioned never to go below zero).
    ...(change.credit ? { entry: change.credit } : {}),
    now,
  });
  return s;
}

async function get(tenantId: string, id: string): Promise<SubscriptionState | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.subscription(tenantId, id), ConsistentRead: true }));
  return Item ? fromItem(Item) : null;
}

async function cycles(tenantId: string, id: string): Promise<CycleRecord[]> {
  const { pk, skPrefix } = keys.cyclesPrefix(tenantId, id);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': pk, ':p': skPrefix },
    ConsistentRead: true,
  });
  return items.map((item) => JSON.parse(String(item.record)) as CycleRecord);
}

async function due(time: string, limit: number): Promise<Array<{ tenantId: string; id: string; dueAt: string }>> {
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk <= :due',
      ExpressionAttributeValues: { ':pk': keys.subscriptionsDuePartition(), ':due': keys.subscriptionsDueBy(time) },
      ScanIndexForward: true,
      Limit: limit,
    },
    limit,
  );
  return items
    .slice(0, limit)
    .map((item) => ({ tenantId: String(item.tenant_id), id: String(item.subscription_id), dueAt: String(item.gsi3sk).split('#')[0] ?? '' }));
}

export const dynamoSubscriptions: SubscriptionRepository = {
  get,
  async list(tenantId, query) {
    const partition = keys.subscriptionOfTenant(tenantId, '', '').gsi1pk;
    const before = query.cursor ? keys.subscriptionOfTenant(tenantId, query.cursor.createdAt, query.cursor.id).gsi1sk : null;
    const filter = query.status === undefined ? undefined : { attribute: 'status', value: query.status };
    const page = await listPage(partition, before, query, fromItem, filter);
    return { subscriptions: page.items, more: page.more };
  },
  cycles,
  changeItems(previous, change, now) {
    const { stored, items } = writes(previous, change, now);
    return { stored, items: items.map(asWriteItem) };
  },
  save,
  due,
};

const DAY_MS = 86_400_000;

/**
 * Tenants' test clocks. `honoured: false` (production) answers 0 for every tenant whatever is stored, and refuses to
 * set one.
 */
export function dynamoTenantClocks(honoured: boolean): TenantClocks {
  return {
    async offsetMs(tenantId) {
      if (!honoured) return 0;
      const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.clock(tenantId) }));
      return Item ? Number(Item.offset_ms) : 0;
    },
    async maxOffsetMs() {
      if (!honoured) return 0;
      const items = await queryAll({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.clocksPartition() },
      });
      return Math.max(0, ...items.map((item) => Number(item.offset_ms)));
    },
    async set(tenantId, offsetMs) {
      if (!honoured) throw new Error('Test clocks are not honoured in production.');
      if (!Number.isSafeInteger(offsetMs) || offsetMs < 0 || offsetMs > 3660 * DAY_MS) throw new RangeError(`clock offset ${offsetMs} ms`);
      await db().send(
        new PutCommand({ TableName: tableName(), Item: { ...keys.clock(tenantId), ...keys.clockOfTenant(tenantId), type: 'clock', offset_ms: offsetMs } }),
      );
    },
  };
}
