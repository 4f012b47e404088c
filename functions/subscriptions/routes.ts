import { listPlans, listSubscriptions, subscriptionCycles } from '../../shared/usecases/subscriptions/read.js';
import { publicOrigin } from '../../shared/http/origin.js';
import * as z from 'zod';
import type { PlanState } from '../../shared/domain/plans.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import type { SubscriptionState } from '../../shared/domain/subscriptions.js';
import { created, ok, principalOf, routesOf } from '../../shared/http/route.js';
import { CreatePlanBody, createPlan, PlanPath, requirePlan } from '../../shared/usecases/subscriptions/plans.js';
import type { SubscriptionsDeps } from '../../shared/usecases/subscriptions/ports.js';
import {
  CycleRecordSchema,
  page,
  PageParams,
  PlanRecord,
  planRecord,
  SubscriptionListParams,
  SubscriptionRecord,
  subscriptionRecord,
} from '../../shared/usecases/subscriptions/present.js';
import {
  CancelSubscriptionBody,
  cancelSubscription,
  CreateSubscriptionBody,
  createSubscription,
  requireSubscription,
  SubscriptionPath,
} from '../../shared/usecases/subscriptions/subscriptions.js';

/** Plans and subscriptions (issue 30, DESIGN section 12). */
const plansTag = ['Plans'];
const tags = ['Subscriptions'];
const route = routesOf<SubscriptionsDeps>();

/** Checkout links on the deployment's public base URL (shared/http/origin.ts). */
const originOf = (req: Parameters<typeof publicOrigin>[0], deps: SubscriptionsDeps): string => publicOrigin(req, deps.settings.publicBaseUrl);

const CyclesPage = lazySchema(() => z.object({ results: z.array(CycleRecordSchema()) }));

export const subscriptionRoutes = [
  route({
    method: 'POST',
    path: '/plans/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: CreatePlanBody,
    idempotent: true,
    doc: {
      summary: 'Create a plan',
      description:
        'A plan prices one period: amount in price_currency (USD by default), paid in currency, every interval_count intervals; trial_days before the first period, grace_days (default 3) a period stays payable once past due. Plans do not change: a new price is a new plan.',
      tags: plansTag,
      responses: {
        201: { description: 'The plan', schema: PlanRecord },
        400: {
          description:
            'invalid_request (the price below the currency minimum or above its maximum at the current rate: details.minimum, currency, minimum_price), invalid_currency',
        },
      },
    },
    handle: async (req, deps) => {
      const present = (p: PlanState) => created(planRecord(p));
      return present(
        await createPlan({ tenant: principalOf(req).tenant, body: req.body, now: req.now, idempotency: req.idempotency?.with(present) ?? null }, deps),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/plans/',
    auth: 'bearer',
    scopes: READ,
    query: PageParams,
    doc: {
      summary: "The tenant's plans",
      description: "Newest first; `cursor`: the previous page's next_cursor.",
      tags: plansTag,
      responses: { 200: { description: 'A page', schema: page(PlanRecord) } },
    },
    handle: async (req, deps) => ok(await listPlans(principalOf(req).tenant.id, req.query, deps)),
  }),
  route({
    method: 'GET',
    path: '/plans/{plan_id}/',
    auth: 'bearer',
    scopes: READ,
    params: PlanPath,
    doc: {
      summary: 'Retrieve a plan',
      tags: plansTag,
      responses: { 200: { description: 'The plan', schema: PlanRecord }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) => ok(planRecord(await requirePlan(principalOf(req).tenant.id, req.params.plan_id, deps))),
  }),
  route({
    method: 'POST',
    path: '/subscriptions/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: CreateSubscriptionBody,
    idempotent: true,
    doc: {
      summary: 'Subscribe a customer to a plan',
      description: [
        "push: with trial_days, trialing until the trial ends; otherwise incomplete, its first period's payment opened at once (setup.checkout_url, also announced by subscription.cycle_opened).",
        "Each period opens an ordinary payment of the plan's price, due 24 hours after the period starts; unpaid then, the subscription is past_due, and expired once grace_days more pass unpaid.",
        'pull (with wallet_address; an EVM stablecoin priced in USD where the collector is configured): setup carries what the wallet approves and authorises; each period charges it (docs/subscriptions.md).',
      ].join(' '),
      tags,
      responses: {
        201: { description: 'The subscription', schema: SubscriptionRecord },
        400: {
          description:
            'invalid_request (collection pull not offered for the plan; wallet_address missing, invalid, or given for push; the plan price below the currency minimum), invalid_currency',
        },
        404: { description: 'Unknown plan' },
      },
    },
    handle: async (req, deps) => {
      const present = (s: SubscriptionState) => created(subscriptionRecord(s, deps.mandates));
      return present(
        await createSubscription(
          { tenant: principalOf(req).tenant, body: req.body, now: req.now, origin: originOf(req, deps), idempotency: req.idempotency?.with(present) ?? null },
          deps,
        ),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/subscriptions/',
    auth: 'bearer',
    scopes: READ,
    query: SubscriptionListParams,
    doc: {
      summary: "The tenant's subscriptions",
      description: 'Newest first, optionally of one status.',
      tags,
      responses: { 200: { description: 'A page', schema: page(SubscriptionRecord) } },
    },
    handle: async (req, deps) => ok(await listSubscriptions(principalOf(req).tenant.id, req.query, deps)),
  }),
  route({
    method: 'GET',
    path: '/subscriptions/{subscription_id}/',
    auth: 'bearer',
    scopes: READ,
    params: SubscriptionPath,
    doc: {
      summary: 'Retrieve a subscription',
      tags,
      responses: { 200: { description: 'The subscription', schema: SubscriptionRecord }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) => ok(subscriptionRecord(await requireSubscription(principalOf(req).tenant.id, req.params.subscription_id, deps), deps.mandates)),
  }),
  route({
    method: 'POST',
    path: '/subscriptions/{subscription_id}/cancel/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: SubscriptionPath,
    body: CancelSubscriptionBody,
    idempotent: true,
    doc: {
      summary: 'Cancel a subscription',
      description:
        "Now (default): canceled, its open period's payment cancelled while nothing was paid to it. at_period_end: it ends with its current period, no period opens after. 409 invalid_state once canceled or expired.",
      tags,
      responses: { 200: { description: 'The subscription', schema: SubscriptionRecord }, 409: { description: 'invalid_state' } },
    },
    handle: async (req, deps) => {
      const present = (s: SubscriptionState) => ok(subscriptionRecord(s, deps.mandates));
      const input = {
        tenantId: principalOf(req).tenant.id,
        id: req.params.subscription_id,
        atPeriodEnd: req.body.at_period_end ?? false,
        now: req.now,
        idempotency: req.idempotency?.with(present) ?? null,
      };
      return present(await cancelSubscription(input, deps));
    },
  }),
  route({
    method: 'GET',
    path: '/subscriptions/{subscription_id}/cycles/',
    auth: 'bearer',
    scopes: READ,
    params: SubscriptionPath,
    doc: {
      summary: "A subscription's cycles",
      description: 'One record per period billed, oldest first: its payment, status and amount.',
      tags,
      responses: {
        200: { description: '{results[]}', schema: CyclesPage },
        404: { description: 'Unknown subscription' },
      },
    },
    handle: async (req, deps) => ok(await subscriptionCycles(principalOf(req).tenant.id, req.params.subscription_id, deps)),
  }),
];
