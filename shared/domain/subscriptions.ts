import { ConflictError } from './errors.js';
import type { EventDraft } from './events.js';
import { eventDraft, EVENTS } from './events.js';
import type { Decimal } from './money.js';
import type { PlanState } from './plans.js';
import { addDays, periodOf } from './plans.js';

/**
 * Subscriptions, pure (issue 30, DESIGN section 12): a customer billed a plan every period. Every transition lives in
 * `transition`: a subscription and a fact in, the new subscription, its events and the cycle record it writes out. The
 * repository alone conditions on and bumps the version; the use cases decide which fact is due (`nextStep`).
 *
 * ```
 * create --(trial_days)--> trialing --trial ends: open_cycle--> (cycle open)
 * create ----------------> incomplete (first cycle open at once)
 * incomplete | trialing | active | past_due --paid--> active     (subscription.activated the first time, else .renewed)
 * active --(cycle unpaid at its due time)--> past_due --(grace_days pass unpaid)--> expired
 * incomplete --(due time + grace_days pass unpaid)--> expired
 * any but canceled | expired --cancel--> canceled (now, or at the period's end: cancel_at_period_end)
 * ```
 *
 * Push collection: each period (cycle) opens at its start an ORDINARY payment of the plan's price (the use case
 * creates it, in ONE transaction with the cycle record, whose key is the period's, and this subscription's advance).
 * The cycle is due `DUE_HOURS` after the period starts; its payment stays payable `grace_days` more, then expires with
 * the subscription. Periods are billed in advance: cycle n covers period n.
 */

export const SUBSCRIPTION_STATUSES = ['incomplete', 'trialing', 'active', 'past_due', 'canceled', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const COLLECTIONS = ['push', 'pull'] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** Hours after a period's start by which its payment is due (past it: past_due). */
export const DUE_HOURS = 24;

export const isEnded = (s: Pick<SubscriptionState, 'status'>): boolean => s.status === 'canceled' || s.status === 'expired';

export type CycleStatus = 'open' | 'paid' | 'unpaid' | 'canceled';

/** One period's bill: its payment and what became of it. */
export interface CycleRecord {
  readonly tenantId: string;
  readonly subscriptionId: string;
  readonly index: number;
  readonly periodStart: string;
  readonly periodEnd: string;
  readonly amount: Decimal;
  readonly priceCurrency: string;
  readonly currency: string;
  readonly paymentId: string;
  readonly checkoutUrl: string;
  readonly status: CycleStatus;
  /** When the payment is due (past it, the subscription is past_due) and when the cycle lapses unpaid. */
  readonly dueAt: string;
  readonly expiresAt: string;
  readonly openedAt: string;
  readonly closedAt: string | null;
}

/** The plan's terms, copied at creation: a subscription bills what it was sold at. */
export type PlanTerms = Pick<PlanState, 'amount' | 'priceCurrency' | 'currency' | 'interval' | 'intervalCount' | 'trialDays' | 'graceDays'>;

export interface SubscriptionState {
  readonly id: string;
  readonly tenantId: string;
  readonly planId: string;
  readonly terms: PlanTerms;
  readonly customerReference: string;
  readonly email: string | null;
  readonly collection: Collection;
  readonly status: SubscriptionStatus;
  /** Start of period 0 (the end of the trial, if any): every boundary is counted from it. */
  readonly anchor: string;
  readonly currentPeriodStart: string;
  readonly currentPeriodEnd: string;
  readonly trialEnd: string | null;
  /** Index of the last cycle opened (-1: none yet, in trial). */
  readonly cycleIndex: number;
  /** The cycle of the current period while its payment is awaited; null once paid, or in trial. */
  readonly openCycle: CycleRecord | null;
  readonly paidCycles: number;
  readonly cancelAtPeriodEnd: boolean;
  readonly canceledAt: string | null;
  readonly endedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
}

export interface SubscriptionChange {
  readonly state: SubscriptionState;
  readonly events: readonly EventDraft[];
  /** The cycle record this change writes: `created` (conditioned on its period's key being free) or updated. */
  readonly cycle: { readonly record: CycleRecord; readonly created: boolean } | null;
}

/** What the cycle of period `index` will be, for its payment to be opened (the payment id and checkout URL follow). */
export function cyclePeriod(s: Pick<SubscriptionState, 'anchor' | 'terms'>, index: number): { start: Date; end: Date; dueAt: Date; expiresAt: Date } {
  const { start, end } = periodOf(new Date(s.anchor), s.terms, index);
  const dueAt = new Date(start.getTime() + DUE_HOURS * 3_600_000);
  return { start, end, dueAt, expiresAt: addDays(dueAt, s.terms.graceDays) };
}

export interface SubscriptionDraft {
  readonly id: string;
  readonly tenantId: string;
  readonly plan: PlanState;
  readonly customerReference: string;
  readonly email: string | null;
  readonly collection: Collection;
}

/** A new subscription (version 0 until stored): in trial, or incomplete until its first cycle (opened next) is paid. */
export function openSubscription(d: SubscriptionDraft, now: Date): SubscriptionChange {
  const at = now.toISOString();
  const { plan } = d;
  const trialEnd = plan.trialDays > 0 ? addDays(now, plan.trialDays).toISOString() : null;
  const state: SubscriptionState = {
    id: d.id,
    tenantId: d.tenantId,
    planId: plan.id,
    terms: {
      amount: plan.amount,
      priceCurrency: plan.priceCurrency,
      currency: plan.currency,
      interval: plan.interval,
      intervalCount: plan.intervalCount,
      trialDays: plan.trialDays,
      graceDays: plan.graceDays,
    },
    customerReference: d.customerReference,
    email: d.email,
    collection: d.collection,
    status: trialEnd ? 'trialing' : 'incomplete',
    anchor: trialEnd ?? at,
    currentPeriodStart: at,
    currentPeriodEnd: trialEnd ?? at,
    trialEnd,
    cycleIndex: -1,
    openCycle: null,
    paidCycles: 0,
    cancelAtPeriodEnd: false,
    canceledAt: null,
    endedAt: null,
    createdAt: at,
    updatedAt: at,
    version: 0,
  };
  const payload = subscriptionPayload(state);
  const events = [
    eventDraft(EVENTS.subscriptionCreated, 'created', payload),
    eventDraft(EVENTS.subscriptionStatusUpdate, 'update:created', { ...payload, previous_status: null }),
  ];
  return { state, events, cycle: null };
}

export type SubscriptionFact =
  /** The next period's cycle, its payment opened in the same transaction. */
  | { readonly kind: 'open_cycle'; readonly paymentId: string; readonly checkoutUrl: string }
  /** The open cycle's payment completed. */
  | { readonly kind: 'paid' }
  /** The open cycle is past its due time unpaid. */
  | { readonly kind: 'overdue' }
  /** The open cycle is past its grace unpaid. */
  | { readonly kind: 'lapse' }
  | { readonly kind: 'cancel'; readonly atPeriodEnd: boolean }
  /** The period ended with cancel_at_period_end set. */
  | { readonly kind: 'end_period' };

export type AdvanceStep = Exclude<SubscriptionFact['kind'], 'cancel'>;

/** What the advancer should do now, given whether the open cycle's payment completed; null: nothing yet. */
export function nextStep(s: SubscriptionState, now: Date, openPaymentCompleted: boolean): AdvanceStep | null {
  if (isEnded(s) || s.collection !== 'push') return null;
  const t = now.getTime();
  const cycle = s.openCycle;
  if (cycle) {
    if (openPaymentCompleted) return 'paid';
    if (t >= Date.parse(cycle.expiresAt)) return 'lapse';
    if (t >= Date.parse(cycle.dueAt) && s.status !== 'past_due' && s.status !== 'incomplete') return 'overdue';
    if (s.cancelAtPeriodEnd && t >= Date.parse(s.currentPeriodEnd)) return 'end_period';
    return null;
  }
  if (t < Date.parse(s.currentPeriodEnd)) return null;
  return s.cancelAtPeriodEnd ? 'end_period' : 'open_cycle';
}

/** When the advancer should next look at `s` (null: never again; a payment's completion also calls it in). */
export function nextActionAt(s: SubscriptionState): string | null {
  if (isEnded(s) || s.collection !== 'push') return null;
  const cycle = s.openCycle;
  if (!cycle) return s.currentPeriodEnd;
  const times = [s.status === 'past_due' || s.status === 'incomplete' ? cycle.expiresAt : cycle.dueAt];
  if (s.cancelAtPeriodEnd) times.push(s.currentPeriodEnd);
  return times.sort()[0] ?? null;
}

function refuse(s: SubscriptionState, fact: SubscriptionFact, message: string): never {
  throw new ConflictError(message, { status: s.status, action: fact.kind });
}

/** The pure transition; a fact the state does not allow is a ConflictError (409 `invalid_state`). */
export function transition(s: SubscriptionState, fact: SubscriptionFact, now: Date): SubscriptionChange {
  const at = now.toISOString();
  if (isEnded(s)) refuse(s, fact, `The subscription is ${s.status}.`);
  const base = { ...s, updatedAt: at };
  const change = (state: SubscriptionState, events: readonly SubscriptionEventType[], cycle: SubscriptionChange['cycle'] = null): SubscriptionChange => ({
    state,
    events: [
      ...events.map((type) => eventDraft(type, eventKey(type, state), subscriptionPayload(state))),
      // Envelope A: every change, to the tenant's default URL.
      eventDraft(EVENTS.subscriptionStatusUpdate, `update:${state.updatedAt}:${fact.kind}`, { ...subscriptionPayload(state), previous_status: s.status }),
    ],
    cycle,
  });
  const closeOpen = (status: CycleStatus) => (s.openCycle ? { record: { ...s.openCycle, status, closedAt: at }, created: false } : null);
  switch (fact.kind) {
    case 'open_cycle': {
      if (s.openCycle) refuse(s, fact, 'A cycle is already open.');
      if (s.cancelAtPeriodEnd) refuse(s, fact, 'The subscription ends with its period.');
      const index = s.cycleIndex + 1;
      const p = cyclePeriod(s, index);
      const record: CycleRecord = {
        tenantId: s.tenantId,
        subscriptionId: s.id,
        index,
        periodStart: p.start.toISOString(),
        periodEnd: p.end.toISOString(),
        amount: s.terms.amount,
        priceCurrency: s.terms.priceCurrency,
        currency: s.terms.currency,
        paymentId: fact.paymentId,
        checkoutUrl: fact.checkoutUrl,
        status: 'open',
        dueAt: p.dueAt.toISOString(),
        expiresAt: p.expiresAt.toISOString(),
        openedAt: at,
        closedAt: null,
      };
      const state = { ...base, cycleIndex: index, openCycle: record, currentPeriodStart: record.periodStart, currentPeriodEnd: record.periodEnd };
      return change(state, [EVENTS.subscriptionCycleOpened], { record, created: true });
    }
    case 'paid': {
      if (!s.openCycle) refuse(s, fact, 'No cycle is open.');
      const state = { ...base, status: 'active' as const, openCycle: null, paidCycles: s.paidCycles + 1 };
      return change(state, [s.paidCycles === 0 ? EVENTS.subscriptionActivated : EVENTS.subscriptionRenewed], closeOpen('paid'));
    }
    case 'overdue':
      if (!s.openCycle || s.status === 'past_due' || s.status === 'incomplete') refuse(s, fact, 'Nothing is overdue.');
      return change({ ...base, status: 'past_due' }, [EVENTS.subscriptionPastDue]);
    case 'lapse':
      if (!s.openCycle) refuse(s, fact, 'No cycle is open.');
      return change({ ...base, status: 'expired', openCycle: null, endedAt: at }, [EVENTS.subscriptionExpired], closeOpen('unpaid'));
    case 'cancel':
      if (fact.atPeriodEnd) {
        if (s.cancelAtPeriodEnd) return { state: s, events: [], cycle: null };
        return change({ ...base, cancelAtPeriodEnd: true, canceledAt: at }, []);
      }
      return change({ ...base, status: 'canceled', openCycle: null, canceledAt: at, endedAt: at }, [EVENTS.subscriptionCanceled], closeOpen('canceled'));
    case 'end_period':
      if (!s.cancelAtPeriodEnd) refuse(s, fact, 'The subscription renews.');
      return change({ ...base, status: 'canceled', openCycle: null, endedAt: at }, [EVENTS.subscriptionCanceled], closeOpen('canceled'));
  }
}

type SubscriptionEventType =
  | typeof EVENTS.subscriptionCycleOpened
  | typeof EVENTS.subscriptionActivated
  | typeof EVENTS.subscriptionRenewed
  | typeof EVENTS.subscriptionPastDue
  | typeof EVENTS.subscriptionCanceled
  | typeof EVENTS.subscriptionExpired;

/** The event's natural key: once per cycle for the cycle's events, once per subscription for its ends. */
function eventKey(type: SubscriptionEventType, s: SubscriptionState): string {
  const name = type.slice('subscription.'.length);
  return type === EVENTS.subscriptionCanceled || type === EVENTS.subscriptionExpired ? name : `${name}:${s.cycleIndex}`;
}

/** The subscription as webhooks carry it (`subscription.*`): the record the API answers, with the open cycle's payment. */
export function subscriptionPayload(
  s: SubscriptionState,
): Record<string, unknown> & { subscription_id: string; plan_id: string; status: string; cycle: number } {
  return {
    subscription_id: s.id,
    plan_id: s.planId,
    status: s.status,
    customer_reference: s.customerReference,
    collection: s.collection,
    current_period_start: s.currentPeriodStart,
    current_period_end: s.currentPeriodEnd,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    cycle: s.cycleIndex,
    amount: s.terms.amount,
    price_currency: s.terms.priceCurrency,
    currency: s.terms.currency,
    payment_id: s.openCycle?.paymentId ?? null,
    checkout_url: s.openCycle?.checkoutUrl ?? null,
  };
}
