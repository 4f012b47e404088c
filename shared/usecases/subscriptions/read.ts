import type { LazyOutput } from '../../domain/lazy-schema.js';
import type { SubscriptionStatus } from '../../domain/subscriptions.js';
import type { SubscriptionsDeps } from './ports.js';
import type { PageParams } from './present.js';
import { cycleRecord, pageOf, pageQuery, planRecord, subscriptionRecord } from './present.js';
import { requireSubscription } from './subscriptions.js';

/** The reads of plans and subscriptions (issue 30): newest first, a page after the cursor's record. */

/** `GET /plans/`. */
export async function listPlans(tenantId: string, params: LazyOutput<typeof PageParams>, deps: Pick<SubscriptionsDeps, 'plans'>) {
  const { plans, more } = await deps.plans.list(tenantId, await pageQuery(params, (id) => deps.plans.get(tenantId, id)));
  return pageOf(plans, more, planRecord);
}

/** `GET /subscriptions/`, of one status when asked. */
export async function listSubscriptions(
  tenantId: string,
  params: LazyOutput<typeof PageParams> & { readonly status?: SubscriptionStatus | undefined },
  deps: Pick<SubscriptionsDeps, 'subscriptions' | 'mandates'>,
) {
  const query = await pageQuery(params, (id) => deps.subscriptions.get(tenantId, id));
  const { subscriptions, more } = await deps.subscriptions.list(tenantId, { ...query, ...(params.status ? { status: params.status } : {}) });
  return pageOf(subscriptions, more, (s) => subscriptionRecord(s, deps.mandates));
}

/** `GET /subscriptions/{id}/cycles/`: one record per period billed, oldest first. */
export async function subscriptionCycles(tenantId: string, id: string, deps: Pick<SubscriptionsDeps, 'subscriptions'>) {
  const s = await requireSubscription(tenantId, id, deps);
  return { results: (await deps.subscriptions.cycles(s.tenantId, s.id)).map(cycleRecord) };
}
