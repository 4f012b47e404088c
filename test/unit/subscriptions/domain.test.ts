import fc from 'fast-check';
import { addMonths, periodBoundary, periodOf } from '../../../shared/domain/plans.js';
import type { PlanState } from '../../../shared/domain/plans.js';
import type { CycleRecord, PullMandate, SubscriptionState } from '../../../shared/domain/subscriptions.js';
import {
  chargeReference,
  cyclePeriod,
  parseChargeReference,
  mandateStart,
  nextActionAt,
  nextStep,
  openSubscription,
  transition,
} from '../../../shared/domain/subscriptions.js';

/** Plans' period arithmetic and the subscription's transitions, pure. */
const at = (iso: string) => new Date(iso);
const plan = (over: Partial<PlanState> = {}): PlanState => ({
  id: 'plan-1',
  tenantId: 't',
  name: 'Monthly',
  amount: '10',
  priceCurrency: 'USD',
  currency: 'USDTERC20',
  interval: 'month',
  intervalCount: 1,
  trialDays: 0,
  graceDays: 3,
  createdAt: '2026-01-01T00:00:00.000Z',
  version: 1,
  ...over,
});

describe('period arithmetic', () => {
  it('clamps months at their end relative to the anchor, never drifting', () => {
    const anchor = at('2026-01-31T10:00:00.000Z');
    const p = plan();
    expect([1, 2, 3, 13].map((i) => periodBoundary(anchor, p, i).toISOString())).toEqual([
      '2026-02-28T10:00:00.000Z',
      '2026-03-31T10:00:00.000Z',
      '2026-04-30T10:00:00.000Z',
      '2027-02-28T10:00:00.000Z',
    ]);
    expect(addMonths(at('2028-01-31T00:00:00.000Z'), 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('counts days, weeks, years and interval_count', () => {
    const anchor = at('2024-02-29T00:00:00.000Z');
    expect(periodBoundary(anchor, plan({ interval: 'day', intervalCount: 3 }), 2).toISOString()).toBe('2024-03-06T00:00:00.000Z');
    expect(periodBoundary(anchor, plan({ interval: 'week', intervalCount: 2 }), 1).toISOString()).toBe('2024-03-14T00:00:00.000Z');
    expect(periodBoundary(anchor, plan({ interval: 'year', intervalCount: 1 }), 1).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(periodBoundary(anchor, plan({ interval: 'year', intervalCount: 1 }), 4).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(periodBoundary(anchor, plan({ interval: 'month', intervalCount: 3 }), 1).toISOString()).toBe('2024-05-29T00:00:00.000Z');
  });

  it('periods tile time: each starts where the previous ended, lasts at least 28 days a month and at most 31, and keeps the time of day', () => {
    fc.assert(
      fc.property(fc.date({ min: at('2000-01-01'), max: at('2099-12-31'), noInvalidDate: true }), fc.integer({ min: 0, max: 200 }), (anchor, i) => {
        const p = plan();
        const { start, end } = periodOf(anchor, p, i);
        const next = periodOf(anchor, p, i + 1);
        const days = (end.getTime() - start.getTime()) / 86_400_000;
        expect(next.start.getTime()).toBe(end.getTime());
        expect(days).toBeGreaterThanOrEqual(28);
        expect(days).toBeLessThanOrEqual(31);
        expect(end.getUTCHours()).toBe(anchor.getUTCHours());
        expect(end.getUTCDate()).toBe(Math.min(anchor.getUTCDate(), new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate()));
      }),
    );
  });
});

describe('subscription transitions', () => {
  const now = at('2026-01-31T10:00:00.000Z');
  const created = (over: Partial<PlanState> = {}) => ({
    ...openSubscription({ id: 's', tenantId: 't', plan: plan(over), customerReference: 'c', email: null, collection: 'push' }, now).state,
    version: 1,
  });
  const open = (s: SubscriptionState, when = now) => ({
    ...transition(s, { kind: 'open_cycle', paymentId: 'p', checkoutUrl: 'u' }, when).state,
    version: s.version + 1,
  });

  it('opens a first cycle at once without a trial, and after the trial with one', () => {
    const s = created();
    expect(s.status).toBe('incomplete');
    expect(nextStep(s, now, false)).toBe('open_cycle');
    const c = transition(s, { kind: 'open_cycle', paymentId: 'p', checkoutUrl: 'u' }, now);
    expect(c.cycle).toMatchObject({ created: true, record: { index: 0, dueAt: '2026-02-01T10:00:00.000Z', expiresAt: '2026-02-04T10:00:00.000Z' } });
    expect(c.events.map((e) => e.type)).toEqual(['subscription.cycle_opened', 'subscription_status_update']);

    const t = created({ trialDays: 14 });
    expect(t).toMatchObject({ status: 'trialing', currentPeriodEnd: '2026-02-14T10:00:00.000Z' });
    expect(nextStep(t, at('2026-02-14T09:59:59.000Z'), false)).toBeNull();
    expect(nextStep(t, at('2026-02-14T10:00:00.000Z'), false)).toBe('open_cycle');
    expect(cyclePeriod(t, 0).start.toISOString()).toBe('2026-02-14T10:00:00.000Z');
  });

  it('paid: activated the first time, renewed after; unpaid: past_due at the due time, expired after the grace', () => {
    const s = open(created());
    const active = transition(s, { kind: 'paid' }, now);
    expect(active.state.status).toBe('active');
    expect(active.events[0]?.type).toBe('subscription.activated');
    expect(active.cycle?.record.status).toBe('paid');
    expect(nextActionAt(active.state)).toBe('2026-02-28T10:00:00.000Z');

    const second = open({ ...active.state, version: 3 }, at('2026-02-28T10:00:00.000Z'));
    expect(second.openCycle?.index).toBe(1);
    expect(nextStep(second, at('2026-03-01T09:00:00.000Z'), false)).toBeNull();
    expect(nextStep(second, at('2026-03-01T10:00:00.000Z'), false)).toBe('overdue');
    const pastDue = transition(second, { kind: 'overdue' }, at('2026-03-01T10:00:00.000Z')).state;
    expect(pastDue.status).toBe('past_due');
    expect(nextActionAt(pastDue)).toBe('2026-03-04T10:00:00.000Z');
    expect(transition(pastDue, { kind: 'paid' }, now).events[0]?.type).toBe('subscription.renewed');
    expect(nextStep(pastDue, at('2026-03-04T10:00:00.000Z'), false)).toBe('lapse');
    const expired = transition(pastDue, { kind: 'lapse' }, at('2026-03-04T10:00:00.000Z'));
    expect(expired.state.status).toBe('expired');
    expect(expired.cycle?.record.status).toBe('unpaid');
    expect(nextActionAt(expired.state)).toBeNull();
    expect(() => transition(expired.state, { kind: 'open_cycle', paymentId: 'q', checkoutUrl: 'u' }, now)).toThrow('expired');
  });

  it('cancel at period end: no cycle opens, canceled when the period ends; cancel now: ends at once', () => {
    const active = { ...transition(open(created()), { kind: 'paid' }, now).state, version: 3 };
    const marked = transition(active, { kind: 'cancel', atPeriodEnd: true }, now).state;
    expect(marked).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    expect(nextStep(marked, at('2026-02-28T10:00:00.000Z'), false)).toBe('end_period');
    expect(() => transition(marked, { kind: 'open_cycle', paymentId: 'q', checkoutUrl: 'u' }, now)).toThrow();
    expect(transition(marked, { kind: 'end_period' }, now).state.status).toBe('canceled');
    const now2 = transition(open(created()), { kind: 'cancel', atPeriodEnd: false }, now);
    expect(now2.state.status).toBe('canceled');
    expect(now2.cycle?.record.status).toBe('canceled');
  });

  it('gives every event of one cycle its own natural key, so a replayed change writes the same events', () => {
    const s = open(created());
    const a = transition(s, { kind: 'paid' }, now);
    const b = transition(s, { kind: 'paid' }, now);
    expect(a.events.map((e) => e.key)).toEqual(b.events.map((e) => e.key));
    expect(a.events[0]?.key).toBe('activated:0');
  });
});

describe('pull subscription transitions', () => {
  const created = at('2026-03-01T12:00:00.000Z');
  const mandate: PullMandate = {
    network: 'ETH',
    chainId: 1,
    collector: '0x1111111111111111111111111111111111111111',
    subscriber: '0x2222222222222222222222222222222222222222',
    token: '0x3333333333333333333333333333333333333333',
    payee: '0x4444444444444444444444444444444444444444',
    perChargeCap: '10000000',
    perPeriodCap: '10000000',
    periodSeconds: 28 * 86_400,
    start: mandateStart(plan(), created),
    salt: '7',
    mandateId: '0xabc',
  };
  const pull = () =>
    openSubscription({ id: 's1', tenantId: 't', plan: plan(), customerReference: 'c', email: null, collection: 'pull', mandate }, created).state;
  const minutes = (n: number) => new Date(created.getTime() + n * 60_000);

  it('waits for the mandate on chain, looked at every minute, and expires unseen after seven days', () => {
    const s = pull();
    expect(s).toMatchObject({ status: 'incomplete', openCycle: null, mandate });
    expect(nextStep(s, minutes(0.5), false)).toBeNull();
    expect(nextStep(s, minutes(1), false)).toBe('check_approval');
    const looked = transition(s, { kind: 'check_approval' }, minutes(1));
    expect(looked.events).toEqual([]);
    expect(nextActionAt(looked.state)).toBe(minutes(2).toISOString());
    expect(nextStep(s, minutes(7 * 24 * 60), false)).toBe('lapse');
    expect(transition(s, { kind: 'lapse' }, minutes(7 * 24 * 60)).state.status).toBe('expired');
    expect(() =>
      openSubscription(
        { id: 's1', tenantId: 't', plan: plan(), customerReference: 'c', email: null, collection: 'pull', mandate: { ...mandate, start: 1 } },
        created,
      ),
    ).toThrow(RangeError);
  });

  it('opens a cycle with its charge, never lapses while the charge is in flight, and a made charge activates and credits the amount less the fee', () => {
    const opened = transition(pull(), { kind: 'open_charge', units: '10000000', fee: '0.1' }, minutes(2));
    const cycle = opened.state.openCycle as CycleRecord;
    expect(cycle).toMatchObject({
      index: 0,
      paymentId: null,
      status: 'open',
      charge: { reference: chargeReference('t', 's1', 0), units: '10000000', txHash: null },
    });
    expect(opened.cycle).toEqual({ record: cycle, created: true });
    expect(nextActionAt(opened.state)).toBeNull();
    expect(nextStep(opened.state, at('2026-06-01T00:00:00.000Z'), false)).toBeNull();
    const charged = transition(opened.state, { kind: 'charged', cycle, txHash: '0xhash' }, minutes(3));
    expect(charged.state).toMatchObject({ status: 'active', paidCycles: 1, openCycle: null });
    expect(charged.events.map((e) => e.type)).toContain('subscription.activated');
    expect(charged.cycle?.record).toMatchObject({ status: 'paid', charge: { txHash: '0xhash' } });
    expect(charged.credit?.entryId).toBe('subscription_charge:s1:0');
    expect(charged.credit?.entry.legs.map((l) => [l.to.account, l.amount])).toEqual([
      ['main', '9.9'],
      ['platform:fees', '0.1'],
    ]);
    // The same result again (the cycle as now stored): nothing.
    const again = transition(charged.state, { kind: 'charged', cycle: charged.cycle?.record as CycleRecord, txHash: '0xhash' }, minutes(4));
    expect(again).toEqual({ state: charged.state, events: [], cycle: null });
    // The next period opens at its start.
    expect(nextStep(charged.state, at(charged.state.currentPeriodEnd), false)).toBe('open_charge');
  });

  it('a refused charge: past_due (expired after the grace), or expired at once when the mandate was revoked; a charge settling after a cancel still credits', () => {
    const opened = transition(pull(), { kind: 'open_charge', units: '10000000', fee: '0.1' }, minutes(2));
    const active = transition(opened.state, { kind: 'charged', cycle: opened.state.openCycle as CycleRecord, txHash: '0x1' }, minutes(3)).state;
    const next = transition(active, { kind: 'open_charge', units: '10000000', fee: '0.1' }, at(active.currentPeriodEnd));
    const cycle = next.state.openCycle as CycleRecord;
    const failed = transition(next.state, { kind: 'charge_failed', cycle, reason: 'transfer_failed', revoked: false }, at(active.currentPeriodEnd));
    expect(failed.state.status).toBe('past_due');
    expect(failed.events.map((e) => e.type)).toContain('subscription.past_due');
    expect(failed.credit).toBeUndefined();
    expect(nextStep(failed.state, at(cycle.expiresAt), false)).toBe('lapse');
    const revoked = transition(next.state, { kind: 'charge_failed', cycle, reason: 'revoked', revoked: true }, at(active.currentPeriodEnd));
    expect(revoked.state).toMatchObject({ status: 'expired', openCycle: null });
    expect(revoked.cycle?.record).toMatchObject({ status: 'unpaid', charge: { failure: 'revoked' } });
    const canceled = transition(next.state, { kind: 'cancel', atPeriodEnd: false }, at(active.currentPeriodEnd)).state;
    const late = transition(canceled, { kind: 'charged', cycle, txHash: '0x2' }, at(active.currentPeriodEnd));
    expect(late.state).toBe(canceled);
    expect(late.events).toEqual([]);
    expect(late.credit?.entryId).toBe('subscription_charge:s1:1');
  });

  it('retries a charge refused for want of allowance a day later within the grace, never one refused for good', () => {
    const opened = transition(pull(), { kind: 'open_charge', units: '10000000', fee: '0.1' }, minutes(2));
    const cycle = opened.state.openCycle as CycleRecord;
    const failed = transition(opened.state, { kind: 'charge_failed', cycle, reason: 'transfer_failed', revoked: false }, minutes(3));
    const day = new Date(minutes(3).getTime() + 24 * 3_600_000);
    expect(nextActionAt(failed.state)).toBe(day.toISOString());
    expect(nextStep(failed.state, minutes(60), false)).toBeNull();
    expect(nextStep(failed.state, day, false)).toBe('retry_charge');
    const retried = transition(failed.state, { kind: 'retry_charge' }, day);
    expect(retried.state.openCycle?.charge).toMatchObject({ attempt: 2, failure: null, reference: `${chargeReference('t', 's1', 0)}.r2` });
    expect(parseChargeReference(`${chargeReference('t', 's1', 0)}.r2`)).toEqual({ tenantId: 't', subscriptionId: 's1', index: 0, attempt: 2 });
    const refused = transition(opened.state, { kind: 'charge_failed', cycle, reason: 'not_authorized', revoked: false }, minutes(3));
    expect(nextStep(refused.state, day, false)).toBeNull();
    expect(nextActionAt(refused.state)).toBe(cycle.expiresAt);
  });
});
