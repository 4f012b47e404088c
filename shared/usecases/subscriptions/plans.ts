import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';
import { NotFoundError } from '../../domain/errors.js';
import { parseDecimal } from '../../domain/money.js';
import type { PlanState } from '../../domain/plans.js';
import { DEFAULT_GRACE_DAYS, MAX_GRACE_DAYS, MAX_INTERVAL_COUNT, MAX_TRIAL_DAYS, openPlan, PLAN_INTERVALS } from '../../domain/plans.js';
import type { Tenant } from '../../domain/tenant.js';
import type { IdempotencyGuard } from '../ports.js';
import { quoteWithinBounds } from '../payments/create-payment.js';
import { resolvePayCurrency, resolvePriceCurrency } from '../payments/resolve.js';
import { decimal, integerInput } from '../schema.js';
import type { SubscriptionsDeps } from './ports.js';

/** `POST /plans/` (issue 30). */
export const CreatePlanBody = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1).max(200),
      amount: decimal({ maxScale: 8, positive: true }).describe('The price of one period, in price_currency.'),
      price_currency: z.string().trim().min(1).max(10).optional().describe('Fiat code of the price; USD when absent.'),
      currency: z.string().trim().min(1).max(20).describe('The pay currency each period is paid in (a code of GET /currencies/).'),
      interval: z.enum(PLAN_INTERVALS),
      interval_count: integerInput().pipe(z.number().int().min(1, 'Must be at least 1.')).optional(),
      trial_days: integerInput()
        .pipe(z.number().int().min(0).max(MAX_TRIAL_DAYS, `Must be at most ${MAX_TRIAL_DAYS}.`))
        .optional(),
      grace_days: integerInput()
        .pipe(z.number().int().min(0).max(MAX_GRACE_DAYS, `Must be at most ${MAX_GRACE_DAYS}.`))
        .optional(),
    })
    .superRefine((value, ctx) => {
      const { interval, interval_count: count } = value;
      if (count !== undefined && count > MAX_INTERVAL_COUNT[interval]) {
        ctx.addIssue({ code: 'custom', path: ['interval_count'], message: `Must be at most ${MAX_INTERVAL_COUNT[interval]} for ${interval}.` });
      }
    })
    .meta({ id: 'CreatePlan' }),
);
export type CreatePlanBody = LazyOutput<typeof CreatePlanBody>;

export const PlanPath = lazySchema(() => z.object({ plan_id: z.string().uuid('Not a plan id.') }));

export async function createPlan(
  input: { readonly tenant: Tenant; readonly body: CreatePlanBody; readonly now: Date; readonly idempotency: IdempotencyGuard<PlanState> | null },
  deps: Pick<SubscriptionsDeps, 'plans' | 'payments'>,
): Promise<PlanState> {
  const { body, tenant } = input;
  const currency = resolvePayCurrency({ currency: body.currency }, deps.payments);
  const amount = parseDecimal(body.amount, { field: 'amount', allowZero: false, maxScale: 8 });
  const priceCurrency = resolvePriceCurrency(body.price_currency);
  // A price each period's payment would be refused for, at today's rate, is refused now.
  await quoteWithinBounds(
    { field: 'amount', price: amount, priceCurrency, currency, tenant, isFeePaidByUser: tenant.settings.is_fee_paid_by_user, now: input.now },
    deps.payments,
  );
  const plan = openPlan(
    {
      id: randomUUID(),
      tenantId: tenant.id,
      name: body.name,
      amount,
      priceCurrency,
      currency: currency.code,
      interval: body.interval,
      intervalCount: body.interval_count ?? 1,
      trialDays: body.trial_days ?? 0,
      graceDays: body.grace_days ?? DEFAULT_GRACE_DAYS,
    },
    input.now,
  );
  const guard = input.idempotency;
  return deps.plans.create(plan, guard ? (stored) => [guard.completeItem(stored)] : undefined);
}

export async function requirePlan(tenantId: string, planId: string, deps: Pick<SubscriptionsDeps, 'plans'>): Promise<PlanState> {
  const plan = await deps.plans.get(tenantId, planId);
  if (!plan) throw new NotFoundError('No such plan.');
  return plan;
}
