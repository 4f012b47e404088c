import { ConflictError } from './errors.js';
import type { EventDraft } from './events.js';
import { eventDraft, EVENTS } from './events.js';
import type { CurrencyCode } from './currencies.js';
import type { EntryDraft, Leg } from './ledger.js';
import { EXTERNAL, FEES, MAIN, pocket } from './ledger.js';
import type { Decimal } from './money.js';
import { isPositive, sub } from './money.js';
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
 *
 * Pull collection (EVM stablecoins, docs/subscriptions-pull.md): the subscription carries the mandate the subscriber
 * approves and authorises on chain. While `incomplete` with no cycle, the advancer looks on chain every minute
 * (`check_approval`) for `APPROVAL_WAIT_DAYS`, then expires it; once the mandate is authorised and the allowance
 * covers a charge, cycle 0 opens with its charge (`open_charge`): a chain-tx request written in the same transaction,
 * keyed by the period. Each later period opens the same way at its start. The charge's result closes the cycle:
 * `charged` (paid, the merchant credited in the same transaction: `credit`), or `charge_failed` (past_due, expired
 * after grace_days; a revoked mandate expires it at once). A cycle whose charge is in flight never lapses: its
 * result always comes (confirmed or failed).
 */

export const SUBSCRIPTION_STATUSES = ['incomplete', 'trialing', 'active', 'past_due', 'canceled', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const COLLECTIONS = ['push', 'pull'] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** Hours after a period's start by which its payment is due (past it: past_due). */
export const DUE_HOURS = 24;

export const isEnded = (s: Pick<SubscriptionState, 'status'>): boolean => s.status === 'canceled' || s.status === 'expired';

export type CycleStatus = 'open' | 'paid' | 'unpaid' | 'canceled';

/** Days an incomplete pull subscription waits for its mandate on chain before it expires. */
export const APPROVAL_WAIT_DAYS = 7;
/** Minutes between two looks on chain for an incomplete pull subscription's mandate. */
export const APPROVAL_CHECK_MINUTES = 1;

/**
 * A pull subscription's mandate (the collector contract's terms, docs/subscriptions-pull.md), amounts in the token's
 * base units as decimal strings. Fixed at creation: what the subscriber signs.
 */
export interface PullMandate {
  readonly network: string;
  readonly chainId: number;
  readonly collector: string;
  readonly subscriber: string;
  readonly token: string;
  /** The hot wallet: it receives the charges; the merchant is credited in the ledger. */
  readonly payee: string;
  readonly perChargeCap: string;
  readonly perPeriodCap: string;
  readonly periodSeconds: number;
  /** Unix seconds: period 0 opens (the anchor: after the trial, if any). */
  readonly start: number;
  readonly salt: string;
  readonly mandateId: string;
}

/** A pull charge waiting for its batch (shared/store/subscription-charges.ts keeps it; the collector sends it). */
export interface PendingCharge {
  /** The period's key (`subscription-charge:<tenant>:<subscription>:<period>`). */
  readonly reference: string;
  readonly tenantId: string;
  readonly mandate: PullMandate;
  readonly period: number;
  readonly units: string;
  readonly createdAt: string;
}

/** A pull cycle's charge: its chain-tx request and what became of it. */
export interface CycleCharge {
  /** The chain-tx request's reference (`subscription-charge:<tenant>:<subscription>:<cycle>`). */
  readonly reference: string;
  readonly network: string;
  /** Base units charged (the per-charge cap). */
  readonly units: string;
  /** The platform fee the credit takes, in the currency (fixed when the cycle opens, as a payment's at creation). */
  readonly fee: Decimal;
  readonly txHash: string | null;
  /** Why the charge was not made (the contract's reason, or `chain_tx_failed`). */
  readonly failure: string | null;
  /** The charge's attempt (1, then each retry) and when the last one failed. */
  readonly attempt?: number;
  readonly failedAt?: string | null;
}

/** Failures a charge is retried after (once a day, within the cycle's grace): the allowance or balance may come back. */
export const RETRIED_CHARGE_FAILURES: ReadonlySet<string> = new Set(['transfer_failed', 'chain_tx_failed']);
/** Hours between a failed charge and its retry. */
export const CHARGE_RETRY_HOURS = 24;

/**
 * The reference of a pull cycle's charge: the period's key (attempt 1), so a period is charged at most once; a retry
 * of the same period is `<key>.r<attempt>` (one charge in flight at a time; the contract never charges a period twice).
 */
export const chargeReference = (tenantId: string, subscriptionId: string, index: number, attempt = 1): string =>
  `subscription-charge:${tenantId}:${subscriptionId}:${index}${attempt > 1 ? `.r${attempt}` : ''}`;

/** The tenant, subscription, cycle and attempt a charge reference names (null: not one). */
export function parseChargeReference(reference: string): { tenantId: string; subscriptionId: string; index: number; attempt: number } | null {
  const m = /^subscription-charge:(.+):([^:]+):(\d+)(?:\.r(\d+))?$/.exec(reference);
  return m ? { tenantId: m[1] ?? '', subscriptionId: m[2] ?? '', index: Number(m[3]), attempt: Number(m[4] ?? 1) } : null;
}

/** When a failed charge of `c` is retried (null: not retried). */
function retryAt(c: CycleRecord): string | null {
  const charge = c.charge;
  if (!charge?.failure || !charge.failedAt || !RETRIED_CHARGE_FAILURES.has(charge.failure)) return null;
  const at = new Date(Date.parse(charge.failedAt) + CHARGE_RETRY_HOURS * 3_600_000).toISOString();
  return at < c.expiresAt ? at : null;
}

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
  /** Push: the period's payment and its checkout page; null for pull. */
  readonly paymentId: string | null;
  readonly checkoutUrl: string | null;
  /** Pull: the period's charge; absent for push. */
  readonly charge?: CycleCharge;
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
  /** Pull: the mandate the subscriber authorises on chain; absent for push. */
  readonly mandate?: PullMandate;
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
  /** Pull: the merchant's credit for a charged cycle, posted in the same transaction (never twice: its entry id). */
  readonly credit?: { readonly entryId: string; readonly entry: EntryDraft };
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
  /** Pull: the mandate's terms (its `start` is the anchor: the end of the trial, or now). */
  readonly mandate?: PullMandate;
}

/** Unix seconds of a new subscription's anchor (period 0's start: the end of the trial, or now): a mandate's `start`. */
export const mandateStart = (plan: Pick<PlanState, 'trialDays'>, now: Date): number =>
  Math.floor((plan.trialDays > 0 ? addDays(now, plan.trialDays) : now).getTime() / 1000);

/** A new subscription (version 0 until stored): in trial, or incomplete until its first cycle (opened next) is paid. */
export function openSubscription(d: SubscriptionDraft, now: Date): SubscriptionChange {
  const at = now.toISOString();
  const { plan } = d;
  const trialEnd = plan.trialDays > 0 ? addDays(now, plan.trialDays).toISOString() : null;
  if (d.mandate && d.mandate.start !== mandateStart(plan, now)) throw new RangeError("a mandate starts at the subscription's anchor");
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
    ...(d.mandate ? { mandate: d.mandate } : {}),
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
  /** Pull: the next period's cycle, its charge requested in the same transaction. */
  | { readonly kind: 'open_charge'; readonly units: string; readonly fee: Decimal }
  /** Pull: the open cycle's failed charge sent again (a new attempt, the same period). */
  | { readonly kind: 'retry_charge' }
  /** Pull: an incomplete subscription's mandate not seen on chain yet (looked again later). */
  | { readonly kind: 'check_approval' }
  /** Pull: the cycle's charge was made (`txHash`). */
  | { readonly kind: 'charged'; readonly cycle: CycleRecord; readonly txHash: string }
  /** Pull: the cycle's charge was not made; `revoked`: the subscriber ended the mandate. */
  | { readonly kind: 'charge_failed'; readonly cycle: CycleRecord; readonly reason: string; readonly revoked: boolean }
  /** The open cycle's payment completed. */
  | { readonly kind: 'paid' }
  /** The open cycle is past its due time unpaid. */
  | { readonly kind: 'overdue' }
  /** The open cycle is past its grace unpaid. */
  | { readonly kind: 'lapse' }
  | { readonly kind: 'cancel'; readonly atPeriodEnd: boolean }
  /** The period ended with cancel_at_period_end set. */
  | { readonly kind: 'end_period' };

export type AdvanceStep = Exclude<SubscriptionFact['kind'], 'cancel' | 'charged' | 'charge_failed'>;

/** A pull cycle whose charge is requested and not answered yet. */
const inFlight = (c: CycleRecord | null): boolean => !!c?.charge && c.charge.txHash === null && c.charge.failure === null;

/** Pull: an incomplete subscription whose first cycle is not open yet waits for its mandate until this time. */
const approvalDeadline = (s: SubscriptionState): string => addDays(new Date(s.createdAt), APPROVAL_WAIT_DAYS).toISOString();
const awaitingApproval = (s: SubscriptionState): boolean => s.collection === 'pull' && s.status === 'incomplete' && !s.openCycle && s.cycleIndex < 0;

/** Pull: what the advancer does now (`check_approval`: look on chain, then open the first charge). */
function nextPullStep(s: SubscriptionState, t: number): AdvanceStep | null {
  if (awaitingApproval(s)) {
    if (t >= Date.parse(approvalDeadline(s))) return 'lapse';
    return t >= Date.parse(s.updatedAt) + APPROVAL_CHECK_MINUTES * 60_000 ? 'check_approval' : null;
  }
  const cycle = s.openCycle;
  if (cycle) {
    if (inFlight(cycle)) return null;
    if (t >= Date.parse(cycle.expiresAt)) return 'lapse';
    if (s.cancelAtPeriodEnd && t >= Date.parse(s.currentPeriodEnd)) return 'end_period';
    const retry = retryAt(cycle);
    return retry !== null && t >= Date.parse(retry) ? 'retry_charge' : null;
  }
  if (t < Date.parse(s.currentPeriodEnd)) return null;
  return s.cancelAtPeriodEnd ? 'end_period' : 'open_charge';
}

function nextPullActionAt(s: SubscriptionState): string | null {
  if (awaitingApproval(s)) {
    const next = new Date(Date.parse(s.updatedAt) + APPROVAL_CHECK_MINUTES * 60_000).toISOString();
    return next < approvalDeadline(s) ? next : approvalDeadline(s);
  }
  const cycle = s.openCycle;
  if (!cycle) return s.currentPeriodEnd;
  // In flight: its result calls the subscription in.
  if (inFlight(cycle)) return null;
  const times = [cycle.expiresAt];
  const retry = retryAt(cycle);
  if (retry !== null) times.push(retry);
  if (s.cancelAtPeriodEnd) times.push(s.currentPeriodEnd);
  return times.sort()[0] ?? null;
}

/** What the advancer should do now, given whether the open cycle's payment completed; null: nothing yet. */
export function nextStep(s: SubscriptionState, now: Date, openPaymentCompleted: boolean): AdvanceStep | null {
  if (isEnded(s)) return null;
  const t = now.getTime();
  if (s.collection === 'pull') return nextPullStep(s, t);
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
  if (isEnded(s)) return null;
  if (s.collection === 'pull') return nextPullActionAt(s);
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
  // A charge's result settles its cycle whatever became of the subscription meanwhile (money never goes unrecorded).
  if (fact.kind === 'charged' || fact.kind === 'charge_failed') return chargeResult(s, fact, now);
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
  /** The next period's cycle opened: its payment (push) or its charge (pull), announced. */
  const openNext = (billing: Pick<CycleRecord, 'paymentId' | 'checkoutUrl' | 'charge'>): SubscriptionChange => {
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
      ...billing,
      status: 'open',
      dueAt: p.dueAt.toISOString(),
      expiresAt: p.expiresAt.toISOString(),
      openedAt: at,
      closedAt: null,
    };
    const state = { ...base, cycleIndex: index, openCycle: record, currentPeriodStart: record.periodStart, currentPeriodEnd: record.periodEnd };
    return change(state, [EVENTS.subscriptionCycleOpened], { record, created: true });
  };
  switch (fact.kind) {
    case 'open_cycle':
      return openNext({ paymentId: fact.paymentId, checkoutUrl: fact.checkoutUrl });
    case 'open_charge': {
      if (!s.mandate) refuse(s, fact, 'Not a pull subscription.');
      const network = (s.mandate as PullMandate).network;
      return openNext({
        paymentId: null,
        checkoutUrl: null,
        charge: {
          reference: chargeReference(s.tenantId, s.id, s.cycleIndex + 1),
          network,
          units: fact.units,
          fee: fact.fee,
          txHash: null,
          failure: null,
          attempt: 1,
          failedAt: null,
        },
      });
    }
    case 'retry_charge': {
      const c = s.openCycle;
      if (!c?.charge || retryAt(c) === null) refuse(s, fact, 'No failed charge to retry.');
      const charge = c.charge as CycleCharge;
      const attempt = (charge.attempt ?? 1) + 1;
      const record: CycleRecord = {
        ...c,
        charge: { ...charge, reference: chargeReference(s.tenantId, s.id, c.index, attempt), attempt, txHash: null, failure: null, failedAt: null },
      };
      return { state: { ...base, openCycle: record }, events: [], cycle: { record, created: false } };
    }
    case 'check_approval':
      if (!awaitingApproval(s)) refuse(s, fact, 'No mandate is awaited.');
      return { state: base, events: [], cycle: null };
    case 'paid': {
      if (!s.openCycle) refuse(s, fact, 'No cycle is open.');
      const state = { ...base, status: 'active' as const, openCycle: null, paidCycles: s.paidCycles + 1 };
      return change(state, [s.paidCycles === 0 ? EVENTS.subscriptionActivated : EVENTS.subscriptionRenewed], closeOpen('paid'));
    }
    case 'overdue':
      if (!s.openCycle || s.status === 'past_due' || s.status === 'incomplete') refuse(s, fact, 'Nothing is overdue.');
      return change({ ...base, status: 'past_due' }, [EVENTS.subscriptionPastDue]);
    case 'lapse':
      if (!s.openCycle && !awaitingApproval(s)) refuse(s, fact, 'No cycle is open.');
      if (inFlight(s.openCycle)) refuse(s, fact, "The cycle's charge is in flight.");
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

/**
 * A pull cycle's charge answered (the cycle as stored, `cycle`): charged, the cycle is paid and the merchant credited
 * (the plan's amount less the fee fixed at the cycle's opening, to main, as a completed payment credits); failed, the
 * cycle records why. The subscription moves only while that cycle is its open one: active (activated the first time,
 * else renewed); or past_due (an incomplete one stays incomplete), or expired when the mandate was revoked.
 */
function chargeResult(s: SubscriptionState, fact: Extract<SubscriptionFact, { kind: 'charged' | 'charge_failed' }>, now: Date): SubscriptionChange {
  const at = now.toISOString();
  const c = fact.cycle;
  const charge = c.charge;
  if (!charge) refuse(s, fact, 'The cycle has no charge.');
  // Answered already (a repeated result): nothing changes.
  if (charge.txHash !== null || charge.failure !== null) return { state: s, events: [], cycle: null };
  const current = !isEnded(s) && s.openCycle?.index === c.index;
  const base = { ...s, updatedAt: at };
  const announce = (state: SubscriptionState, types: readonly SubscriptionEventType[]): EventDraft[] => [
    ...types.map((type) => eventDraft(type, eventKey(type, state), subscriptionPayload(state))),
    eventDraft(EVENTS.subscriptionStatusUpdate, `update:${state.updatedAt}:${fact.kind}`, { ...subscriptionPayload(state), previous_status: s.status }),
  ];
  if (fact.kind === 'charged') {
    const record: CycleRecord = { ...c, status: 'paid', charge: { ...charge, txHash: fact.txHash }, closedAt: at };
    const credit = chargeCredit(s, record, fact.txHash);
    if (!current) return { state: s, events: [], cycle: { record, created: false }, credit };
    const state = { ...base, status: 'active' as const, openCycle: null, paidCycles: s.paidCycles + 1 };
    return {
      state,
      events: announce(state, [s.paidCycles === 0 ? EVENTS.subscriptionActivated : EVENTS.subscriptionRenewed]),
      cycle: { record, created: false },
      credit,
    };
  }
  const failed = { ...charge, failure: fact.reason, failedAt: at };
  if (!current) return { state: s, events: [], cycle: { record: { ...c, charge: failed }, created: false } };
  if (fact.revoked) {
    const record: CycleRecord = { ...c, status: 'unpaid', charge: failed, closedAt: at };
    const state = { ...base, status: 'expired' as const, openCycle: null, endedAt: at };
    return { state, events: announce(state, [EVENTS.subscriptionExpired]), cycle: { record, created: false } };
  }
  const record: CycleRecord = { ...c, charge: failed };
  if (s.status === 'incomplete' || s.status === 'past_due') return { state: { ...base, openCycle: record }, events: [], cycle: { record, created: false } };
  const state = { ...base, status: 'past_due' as const, openCycle: record };
  return { state, events: announce(state, [EVENTS.subscriptionPastDue]), cycle: { record, created: false } };
}

/** The merchant's credit of a charged cycle: the amount less the fee, to main; the fee to the platform. */
function chargeCredit(s: SubscriptionState, c: CycleRecord, txHash: string): NonNullable<SubscriptionChange['credit']> {
  const fee = c.charge?.fee ?? '0';
  const net = sub(c.amount, fee);
  const legs: Leg[] = [];
  if (isPositive(net)) legs.push({ from: pocket(EXTERNAL), to: pocket(MAIN), amount: net });
  if (isPositive(fee)) legs.push({ from: pocket(EXTERNAL), to: pocket(FEES), amount: fee });
  const entry: EntryDraft = {
    type: 'payment',
    currency: c.currency as CurrencyCode,
    legs,
    reference: { kind: 'subscription', id: s.id },
    metadata: { charge_tx: txHash, cycle: String(c.index) },
  };
  return { entryId: `subscription_charge:${s.id}:${c.index}`, entry };
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
