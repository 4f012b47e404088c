import type { PlanState } from '../domain/plans.js';
import type { WriteItem } from '../usecases/ports.js';
import type { PageQuery, PlanRepository } from '../usecases/subscriptions/ports.js';
import { commitAggregate, loadState, nextVersion, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { queryAll, tableName } from './client.js';
import { subscriptionKeys as keys } from './keys.js';
import { asTransactItem } from './transact.js';

/** Plans on the single table (issue 30): immutable once created; gsi1 lists a tenant's plans by creation. */
const TYPE = 'plan';

function planItem(p: PlanState): Record<string, unknown> {
  return { ...keys.plan(p.tenantId, p.id), ...keys.planOfTenant(p.tenantId, p.createdAt, p.id), ...stateAttributes(TYPE, p), tenant_id: p.tenantId };
}

async function create(plan: PlanState, alsoWrite?: (stored: PlanState) => readonly WriteItem[]): Promise<PlanState> {
  const p = nextVersion(plan, null);
  const now = new Date(p.createdAt);
  await commitAggregate({
    type: TYPE,
    id: p.id,
    tenantId: p.tenantId,
    put: versionedPut(planItem(p), null),
    outbox: [],
    items: (alsoWrite?.(p) ?? []).map(asTransactItem),
    now,
  });
  return p;
}

/** A page of the tenant's plans, newest first, before the cursor's. */
export async function listPage<S>(
  partition: string,
  before: string | null,
  query: PageQuery,
  decode: (item: Record<string, unknown>) => S,
  filter?: { readonly attribute: string; readonly value: string },
): Promise<{ items: S[]; more: boolean }> {
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: before === null ? 'gsi1pk = :pk' : 'gsi1pk = :pk AND gsi1sk < :before',
      ...(filter ? { FilterExpression: '#f = :f', ExpressionAttributeNames: { '#f': filter.attribute } } : {}),
      ExpressionAttributeValues: { ':pk': partition, ...(before === null ? {} : { ':before': before }), ...(filter ? { ':f': filter.value } : {}) },
      ScanIndexForward: false,
    },
    query.limit + 1,
  );
  return { items: items.slice(0, query.limit).map(decode), more: items.length > query.limit };
}

export const dynamoPlans: PlanRepository = {
  get: (tenantId, planId) => loadState<PlanState>(keys.plan(tenantId, planId), TYPE),
  async list(tenantId, query) {
    const partition = keys.planOfTenant(tenantId, '', '').gsi1pk;
    const before = query.cursor ? keys.planOfTenant(tenantId, query.cursor.createdAt, query.cursor.id).gsi1sk : null;
    const page = await listPage(partition, before, query, (item) => stateOf<PlanState>(item, TYPE));
    return { plans: page.items, more: page.more };
  },
  create,
};
