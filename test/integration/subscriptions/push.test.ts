import { resetConfig } from '../../../shared/config/config.js';
import type { Config } from '../../../shared/config/config.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { dynamoSubscriptions, dynamoTenantClocks } from '../../../shared/store/subscriptions.js';
import { subscriptionsRuntime } from '../../../shared/runtime/subscriptions.js';
import { advanceDue, advanceSubscription } from '../../../shared/usecases/subscriptions/advance.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { completePayment } from '../../../shared/usecases/payments/settle.js';
import { nowFor, openCycle } from '../../../shared/usecases/subscriptions/subscriptions.js';
import { outboxChanges } from '../../support/outbox.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { received, routedApi } from '../refunds/support.js';

/**
 * Push subscriptions end to end on DynamoDB Local: the plan and subscription endpoints as API Gateway routes them, the
 * advancer run as its schedule runs it, payments completed through the repository the workers use (which calls the
 * subscription in), and the tenant's test clock moving time.
 */
const DAY = 86_400_000;
const ORIGIN = 'https://pay.example.com';
let table: TestTable;
let cfg: Config;
let a: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let planId: string;
const clocks = dynamoTenantClocks(true);

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
  cfg = servingEth({ PUBLIC_BASE_URL: ORIGIN, STAGE: 'test' });
  a = await tenantWithToken('Subscriptions A');
  call = caller(routedApi(cfg, ['subscriptions', 'payments']), () => a.bearer);
  const plan = await call('POST', '/plans/', {
    body: { name: 'Monthly', amount: '10', price_currency: 'USD', currency: 'USDTERC20', interval: 'month', interval_count: 1, grace_days: 3 },
  });
  expect(plan.status).toBe(201);
  planId = plan.body.id;
});

afterAll(async () => {
  await table?.stop();
});

const deps = () => subscriptionsRuntime(cfg);

/** The tenant's clock `days` ahead of the real time. */
const clockAt = (days: number) => clocks.set(a.tenantId, Math.round(days * DAY));
/** The tenant's clock `days` after `iso` (a subscription's period boundary). */
const clockAfter = (iso: string, days: number) => clocks.set(a.tenantId, Math.max(0, Math.round(Date.parse(iso) + days * DAY - Date.now())));
const advance = () => advanceDue(new Date(), deps(), ORIGIN);

async function subscribe(tenant = a, c = call): Promise<{ id: string; paymentId: string }> {
  const res = await c('POST', '/subscriptions/', { body: { plan_id: planId, customer_reference: 'cust-1', email: 'c@example.com', collection: 'push' } });
  expect(res.status).toBe(201);
  void tenant;
  return { id: res.body.id, paymentId: res.body.setup.payment_id };
}

/** Pays the payment in full and completes it, as the scanner and the sweep's result save it. */
async function pay(paymentId: string): Promise<PaymentState> {
  const p = (await dynamoPayments.get(a.tenantId, paymentId)) as PaymentState;
  // Completed as the workers complete it: the subscription is called in within the payment's transaction.
  const completed = await completePayment(await received(p, p.amountCrypto, 'sending'), '0xsweep', paymentsRuntime(cfg), new Date());
  expect(completed.status).toBe('completed');
  return completed;
}

const get = async (id: string) => (await call('GET', `/subscriptions/${id}/`)).body;
const cycles = async (id: string) => (await call('GET', `/subscriptions/${id}/cycles/`)).body.results as Array<Record<string, unknown>>;
const eventTypes = async (id: string) => (await outboxChanges(`subscription:${id}:`)).flat().map((e) => e.type);

describe('push subscriptions', () => {
  afterEach(() => clockAt(0));

  it('renews across three periods, one paid late in its grace, then expires when a period stays unpaid past its grace', async () => {
    await clockAt(0);
    const { id, paymentId } = await subscribe();
    const first = await get(id);
    expect(first).toMatchObject({
      status: 'incomplete',
      plan_id: planId,
      collection: 'push',
      setup: { checkout_url: expect.stringMatching(`^${ORIGIN}/checkout/`) },
    });
    const payment0 = (await dynamoPayments.get(a.tenantId, paymentId)) as PaymentState;
    expect(payment0.subscription).toEqual({ id, cycle: 0 });
    expect(payment0.priceAmount).toBe('10');
    expect((await call('GET', `/payments/${paymentId}/`)).body).toMatchObject({ subscription_id: id, subscription_cycle: 0, price_amount: '10' });
    // The list's item and the payment's own webhooks name the subscription and the period too.
    const listed = (await call('GET', '/payments/', { query: { limit: '100' } })).body.results as Array<Record<string, unknown>>;
    expect(listed.find((p) => p.transaction_id === paymentId)).toMatchObject({ subscription_id: id, subscription_cycle: 0 });
    const created = (await outboxChanges(`payment:${paymentId}:`)).flat().find((e) => e.type === 'payment.created');
    expect([created?.payload.subscription_id, String(created?.payload.subscription_cycle)]).toEqual([id, '0']);

    // Period 1 paid in time: active.
    await pay(paymentId);
    await advance();
    expect(await get(id)).toMatchObject({ status: 'active', setup: null });

    // Period 2 opens at the month's end; left unpaid past its due time: past_due; paid within its grace: active again.
    const end1 = (await get(id)).current_period_end;
    await clockAfter(end1, 0.01);
    await advance();
    const opened = await get(id);
    expect(opened).toMatchObject({ status: 'active', current_period_start: end1 });
    expect(opened.setup.payment_id).not.toBe(paymentId);
    await clockAfter(end1, 1.5);
    await advance();
    expect((await get(id)).status).toBe('past_due');
    await pay(opened.setup.payment_id);
    await advance();
    expect((await get(id)).status).toBe('active');

    // Period 3 opens, unpaid past due and grace: expired; nothing opens after.
    const end2 = (await get(id)).current_period_end;
    await clockAfter(end2, 0.01);
    await advance();
    const third = await get(id);
    expect(third.setup).not.toBeNull();
    await clockAfter(end2, 1 + 3 - 0.1);
    await advance();
    expect((await get(id)).status).toBe('past_due');
    await clockAfter(end2, 1 + 3 + 0.1);
    await advance();
    expect(await get(id)).toMatchObject({ status: 'expired', setup: null });
    await clockAfter(end2, 90);
    await advance();

    const list = await cycles(id);
    expect(list.map((c) => [c.index, c.status])).toEqual([
      [0, 'paid'],
      [1, 'paid'],
      [2, 'unpaid'],
    ]);
    const types = await eventTypes(id);
    for (const type of [
      'subscription.created',
      'subscription.activated',
      'subscription.cycle_opened',
      'subscription.past_due',
      'subscription.renewed',
      'subscription.expired',
    ]) {
      expect(types).toContain(type);
    }
    expect(types.filter((t) => t === 'subscription.cycle_opened')).toHaveLength(3);
    expect(types).toContain('subscription_status_update');
  });

  it('canceled at the period end: no period opens after, and the subscription ends with it', async () => {
    await clockAt(0);
    const { id, paymentId } = await subscribe();
    await pay(paymentId);
    await advance();
    const res = await call('POST', `/subscriptions/${id}/cancel/`, { body: { at_period_end: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'active', cancel_at_period_end: true });
    await clockAfter(res.body.current_period_end, 0.01);
    await advance();
    expect((await get(id)).status).toBe('canceled');
    expect(await cycles(id)).toHaveLength(1);
    expect(await eventTypes(id)).toContain('subscription.canceled');
    const again = await call('POST', `/subscriptions/${id}/cancel/`, { body: {} });
    expect(again.status).toBe(409);
  });

  it('canceled now: its unpaid payment is cancelled in the same transaction', async () => {
    await clockAt(0);
    const { id, paymentId } = await subscribe();
    const res = await call('POST', `/subscriptions/${id}/cancel/`, { body: {} });
    expect(res.body.status).toBe('canceled');
    expect((await dynamoPayments.get(a.tenantId, paymentId))?.status).toBe('cancelled');
  });

  it('two advancers of one period open one payment', async () => {
    await clockAt(0);
    const { id, paymentId } = await subscribe();
    await pay(paymentId);
    await advance();
    await clockAfter((await get(id)).current_period_end, 0.01);
    const d = deps();
    const now = new Date();
    await Promise.all([advanceSubscription(a.tenantId, id, now, d, ORIGIN), advanceSubscription(a.tenantId, id, now, d, ORIGIN)]);
    const list = await cycles(id);
    expect(list.map((c) => c.index)).toEqual([0, 1]);
    const listed = await call('GET', '/payments/', { query: { limit: '100' } });
    const ofCycle1 = (listed.body.data ?? listed.body.results ?? []).filter((p: { transaction_id: string }) => p.transaction_id === list[1]?.payment_id);
    expect(ofCycle1).toHaveLength(1);
    const subPayments = await Promise.all(
      (listed.body.data ?? listed.body.results ?? []).map((p: { transaction_id: string }) => dynamoPayments.get(a.tenantId, p.transaction_id)),
    );
    expect(subPayments.filter((p) => p?.subscription?.id === id && p.subscription.cycle === 1)).toHaveLength(1);
  });

  it('two openings of one period from the same read: one commits, the other is refused, one payment is left', async () => {
    await clockAt(0);
    const { id, paymentId } = await subscribe();
    await pay(paymentId);
    await advance();
    const s = await dynamoSubscriptions.get(a.tenantId, id);
    if (!s) throw new Error('no subscription');
    await clockAfter(s.currentPeriodEnd, 0.01);
    const d = deps();
    const tenant = await d.tenants.get(a.tenantId);
    if (!tenant) throw new Error('no tenant');
    const now = await nowFor(a.tenantId, new Date(), d);
    const open = () => openCycle({ previous: s, state: s, prior: null, tenant, now, origin: ORIGIN }, d);
    const outcomes = await Promise.allSettled([open(), open()]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const list = await cycles(id);
    expect(list.map((c) => c.index)).toEqual([0, 1]);
    const listed = await call('GET', '/payments/', { query: { limit: '100' } });
    const all = await Promise.all(
      (listed.body.data ?? listed.body.results ?? []).map((p: { transaction_id: string }) => dynamoPayments.get(a.tenantId, p.transaction_id)),
    );
    expect(
      all
        .filter((p) => p?.subscription?.id === id)
        .map((p) => p?.subscription?.cycle)
        .sort(),
    ).toEqual([0, 1]);
  });

  it('refuses pull collection where no collector is configured, an unknown plan and bad input in the error envelope', async () => {
    const pull = await call('POST', '/subscriptions/', {
      body: { plan_id: planId, customer_reference: 'c', collection: 'pull', wallet_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
    });
    expect(pull.status).toBe(400);
    expect(pull.body.error.details.collection[0]).toMatch(/collector contract/);
    const unknown = await call('POST', '/subscriptions/', {
      body: { plan_id: '5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10', customer_reference: 'c', collection: 'push' },
    });
    expect(unknown.status).toBe(404);
    const bad = await call('POST', '/plans/', { body: { name: 'x', amount: '-1', currency: 'USDTERC20', interval: 'fortnight' } });
    expect(bad.status).toBe(400);
    // A price every period's payment would be refused for (USDTERC20's minimum is 10) is refused with the plan.
    const small = await call('POST', '/plans/', { body: { name: 'Tiny', amount: '5', currency: 'USDTERC20', interval: 'month' } });
    expect([small.status, small.body.error.code, small.body.error.details.minimum, small.body.error.details.currency]).toEqual([
      400,
      'invalid_request',
      '10',
      'USDTERC20',
    ]);
    expect(small.body.error.details.amount[0]).toMatch(/below the minimum of 10 USDTERC20/);
  });

  it("lists plans and subscriptions newest first, page by page with next_cursor, never another tenant's", async () => {
    const made = [];
    for (const name of ['P1', 'P2', 'P3']) {
      made.push((await call('POST', '/plans/', { body: { name, amount: '20', currency: 'USDTERC20', interval: 'week' } })).body.id as string);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call('GET', '/plans/', { query: { limit: '2', ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      expect(res.body.results.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.results.map((p: { id: string }) => p.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 3)).toEqual([...made].reverse());
    expect(seen).toContain(planId);

    const b = await tenantWithToken('Subscriptions B');
    const callB = caller(routedApi(cfg, ['subscriptions']), () => b.bearer);
    expect((await callB('GET', '/plans/')).body).toEqual({ results: [], next_cursor: null });
    expect((await callB('GET', `/plans/${planId}/`)).status).toBe(404);
    const subs = await call('GET', '/subscriptions/', { query: { status: 'canceled' } });
    expect(subs.body.results.length).toBeGreaterThan(0);
    expect(subs.body.results.every((s: { status: string }) => s.status === 'canceled')).toBe(true);
  });

  it('production ignores the test clock', async () => {
    await clockAt(40);
    expect(await dynamoTenantClocks(false).offsetMs(a.tenantId)).toBe(0);
    expect(await dynamoTenantClocks(false).maxOffsetMs()).toBe(0);
    expect(await clocks.offsetMs(a.tenantId)).toBe(40 * DAY);
  });
});
