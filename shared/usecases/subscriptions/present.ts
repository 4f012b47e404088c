import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput, SchemaGetter } from '../../domain/lazy-schema.js';
import { PLAN_INTERVALS } from '../../domain/plans.js';
import type { PlanState } from '../../domain/plans.js';
import type { CycleRecord, SubscriptionState } from '../../domain/subscriptions.js';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.js';
import { queryInteger } from '../schema.js';
import type { Mandates, PageQuery } from './ports.js';

/** Plans, subscriptions and cycles as the API shows them (issue 30); amounts are decimal strings. */
export const PlanRecord = lazySchema(() =>
  z
    .object({
      id: z.string().uuid(),
      name: z.string(),
      amount: z.string(),
      price_currency: z.string(),
      currency: z.string(),
      interval: z.enum(PLAN_INTERVALS),
      interval_count: z.number().int(),
      trial_days: z.number().int(),
      grace_days: z.number().int(),
      created_at: z.string(),
    })
    .meta({ id: 'Plan' }),
);

export const planRecord = (p: PlanState): LazyOutput<typeof PlanRecord> => ({
  id: p.id,
  name: p.name,
  amount: p.amount,
  price_currency: p.priceCurrency,
  currency: p.currency,
  interval: p.interval,
  interval_count: p.intervalCount,
  trial_days: p.trialDays,
  grace_days: p.graceDays,
  created_at: p.createdAt,
});

export const CycleRecordSchema = lazySchema(() =>
  z
    .object({
      index: z.number().int().describe('The period, from 0 (the first paid period)'),
      period_start: z.string(),
      period_end: z.string(),
      amount: z.string(),
      price_currency: z.string(),
      currency: z.string(),
      payment_id: z.string().uuid().nullable().describe('push: the ordinary payment that bills the period; null for pull'),
      checkout_url: z.string().nullable(),
      charge: z
        .object({
          network: z.string(),
          units: z.string().describe('Base units charged'),
          fee: z.string(),
          tx_hash: z.string().nullable(),
          failure: z.string().nullable(),
        })
        .nullable()
        .describe("pull: the period's charge on chain; null for push"),
      status: z.enum(['open', 'paid', 'unpaid', 'canceled']),
      due_at: z.string().describe('Unpaid past it, the subscription is past_due'),
      expires_at: z.string().describe('Unpaid past it, the subscription is expired (due_at + grace_days)'),
    })
    .meta({ id: 'SubscriptionCycle' }),
);

export const cycleRecord = (c: CycleRecord): LazyOutput<typeof CycleRecordSchema> => ({
  index: c.index,
  period_start: c.periodStart,
  period_end: c.periodEnd,
  amount: c.amount,
  price_currency: c.priceCurrency,
  currency: c.currency,
  payment_id: c.paymentId,
  checkout_url: c.checkoutUrl,
  charge: c.charge ? { network: c.charge.network, units: c.charge.units, fee: c.charge.fee, tx_hash: c.charge.txHash, failure: c.charge.failure } : null,
  status: c.status,
  due_at: c.dueAt,
  expires_at: c.expiresAt,
});

const call = () => z.object({ to: z.string(), data: z.string() });

export const PullSetupSchema = lazySchema(() =>
  z
    .object({
      network: z.string(),
      chain_id: z.number().int(),
      collector: z.string(),
      token: z.string(),
      payee: z.string(),
      subscriber: z.string(),
      per_charge_cap: z.string().describe('Base units'),
      per_period_cap: z.string(),
      period_seconds: z.number().int(),
      start: z.number().int(),
      salt: z.string(),
      mandate_id: z.string(),
      allowance: z.string(),
      calls: z.object({ approve: call(), authorize: call() }),
      typed_data: z.record(z.string(), z.unknown()).describe('EIP-712 (eth_signTypedData_v4)'),
    })
    .meta({ id: 'PullSetup' }),
);

export const SubscriptionRecord = lazySchema(() =>
  z
    .object({
      id: z.string().uuid(),
      plan_id: z.string().uuid(),
      status: z.enum(SUBSCRIPTION_STATUSES),
      customer_reference: z.string(),
      email: z.string().nullable(),
      collection: z.enum(['push', 'pull']),
      current_period_start: z.string(),
      current_period_end: z.string(),
      trial_end: z.string().nullable(),
      cancel_at_period_end: z.boolean(),
      canceled_at: z.string().nullable(),
      ended_at: z.string().nullable(),
      setup: z
        .union([z.object({ payment_id: z.string().uuid(), checkout_url: z.string(), due_at: z.string() }), PullSetupSchema()])
        .nullable()
        .describe(
          "push: the open period's payment to pay (its checkout page), null when none is awaited; pull: what the subscriber's wallet approves and authorises (docs/subscriptions-pull.md)",
        ),
      created_at: z.string(),
    })
    .meta({ id: 'Subscription' }),
);

export const subscriptionRecord = (s: SubscriptionState, collector?: Pick<Mandates, 'setup'>): LazyOutput<typeof SubscriptionRecord> => ({
  id: s.id,
  plan_id: s.planId,
  status: s.status,
  customer_reference: s.customerReference,
  email: s.email,
  collection: s.collection,
  current_period_start: s.currentPeriodStart,
  current_period_end: s.currentPeriodEnd,
  trial_end: s.trialEnd,
  cancel_at_period_end: s.cancelAtPeriodEnd,
  canceled_at: s.canceledAt,
  ended_at: s.endedAt,
  setup: setupOf(s, collector),
  created_at: s.createdAt,
});

function setupOf(s: SubscriptionState, collector?: Pick<Mandates, 'setup'>): LazyOutput<typeof SubscriptionRecord>['setup'] {
  if (s.mandate) return collector ? collector.setup(s.mandate) : null;
  const c = s.openCycle;
  return c?.paymentId && c.checkoutUrl ? { payment_id: c.paymentId, checkout_url: c.checkoutUrl, due_at: c.dueAt } : null;
}

/** `?limit=&cursor=`: newest first; `cursor` is the previous page's `next_cursor` (the id of its last record). */
export const PageParams = lazySchema(() =>
  z.object({
    limit: queryInteger(1, 100).optional(),
    cursor: z.string().uuid('Not a cursor of this list.').optional(),
  }),
);

export const SubscriptionListParams = lazySchema(() => PageParams().extend({ status: z.enum(SUBSCRIPTION_STATUSES).optional() }));

export const page = <T extends z.ZodType>(item: SchemaGetter<T>) =>
  lazySchema(() => z.object({ results: z.array(item()), next_cursor: z.string().nullable().describe('The cursor of the next page; null on the last') }));

/** A page's answer: its records and, when more follow, the cursor of the next page (its last record's id). */
export const pageOf = <S extends { readonly id: string }, R>(records: readonly S[], more: boolean, present: (s: S) => R) => ({
  results: records.map(present),
  next_cursor: more ? (records.at(-1)?.id ?? null) : null,
});

/** The page query of `params`: the cursor names the record the page starts after (unknown: from the start). */
export async function pageQuery(
  params: LazyOutput<typeof PageParams>,
  lookup: (id: string) => Promise<{ readonly createdAt: string; readonly id: string } | null>,
): Promise<PageQuery> {
  const after = params.cursor === undefined ? null : await lookup(params.cursor);
  return { limit: params.limit ?? 20, ...(after ? { cursor: { createdAt: after.createdAt, id: after.id } } : {}) };
}
