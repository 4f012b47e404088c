import type { Log } from '../../observability/logger.js';
import type { AdvanceStep, SubscriptionState } from '../../domain/subscriptions.js';
import { nextActionAt, nextStep, transition } from '../../domain/subscriptions.js';
import type { SubscriptionsDeps } from './ports.js';
import type { Now } from './subscriptions.js';
import { checkApproval, openCharge, retryCharge } from './pull.js';
import { endSubscription, nowFor, openCycle } from './subscriptions.js';

/**
 * Who advances subscriptions (issue 30): the scheduled advancer (functions/subscription-advancer, every minute) reads
 * those whose next action is due (one gsi3 query, empty when nothing is due) and takes each one step at a time:
 * its cycle paid -> active; due unpaid -> past_due; grace passed -> expired; its period over -> the next cycle opened,
 * or canceled at the period's end. A payment that completes calls its subscription in (`subscriptionCallIn`, in shared/usecases/payments/settle.ts), so a paid cycle
 * is seen at the advancer's next run.
 *
 * Each step is one transaction conditioned on the version read; a step refused because another advancer (or a
 * payment's call-in) moved the subscription reads it again, so two advancers of one period open one payment.
 */

/** Most steps one subscription takes in one call (paid, then its period over, then the next cycle...). */
const MAX_STEPS = 8;

export type AdvanceDeps = SubscriptionsDeps;

/** Takes one subscription as far as its clock says; returns the steps committed. `dueAt`: its index entry, when read from it. */
export async function advanceSubscription(tenantId: string, id: string, real: Date, deps: AdvanceDeps, origin: string, dueAt?: string): Promise<number> {
  let steps = 0;
  for (let attempt = 0; attempt < MAX_STEPS; attempt++) {
    const s = await deps.subscriptions.get(tenantId, id);
    if (!s) return steps;
    const now = await nowFor(tenantId, real, deps);
    const paymentId = s.openCycle?.paymentId ?? null;
    const payment = paymentId ? await deps.payments.payments.get(tenantId, paymentId) : null;
    const kind = nextStep(s, now.tenant, payment?.status === 'completed');
    if (kind === null) {
      // Called in (a payment) or left due with nothing to do: keyed again by its next action.
      if (dueAt !== undefined && dueAt !== nextActionAt(s) && steps === 0) await deps.subscriptions.save(s, { state: s, events: [], cycle: null }, now.real);
      return steps;
    }
    try {
      await step(s, kind, now, deps, origin);
      steps++;
    } catch (error) {
      const again = await deps.subscriptions.get(tenantId, id);
      if (again && again.version !== s.version) continue; // Moved meanwhile: read again.
      throw error;
    }
  }
  return steps;
}

async function step(s: SubscriptionState, kind: AdvanceStep, now: Now, deps: AdvanceDeps, origin: string): Promise<void> {
  switch (kind) {
    case 'open_cycle': {
      const tenant = await deps.tenants.get(s.tenantId);
      if (!tenant) throw new Error(`no tenant ${s.tenantId}`);
      await openCycle({ previous: s, state: s, prior: null, tenant, now, origin }, deps);
      return;
    }
    case 'end_period':
      await endSubscription(s, { kind: 'end_period' }, now, deps);
      return;
    case 'open_charge':
      await openCharge(s, now, deps);
      return;
    case 'check_approval':
      await checkApproval(s, now, deps);
      return;
    case 'retry_charge':
      await retryCharge(s, now, deps);
      return;
    default:
      await deps.subscriptions.save(s, transition(s, { kind }, now.tenant), now.real);
  }
}

/**
 * The advancer's run: every subscription due by now (the furthest test clock ahead outside production), up to `limit`.
 * One that cannot advance (its period's payment refused: a price now below the currency's minimum, the tenant's
 * daily limit) is logged and stays due, retried at the next run; the others go on.
 */
export async function advanceDue(
  real: Date,
  deps: AdvanceDeps,
  origin: string,
  log?: Pick<Log, 'error'>,
  limit = 100,
): Promise<{ readonly due: number; readonly steps: number; readonly failed: number; readonly charges: number }> {
  const horizon = new Date(real.getTime() + (await deps.clocks.maxOffsetMs()));
  const due = await deps.subscriptions.due(horizon.toISOString(), limit);
  let steps = 0;
  let failed = 0;
  for (const d of due) {
    try {
      steps += await advanceSubscription(d.tenantId, d.id, real, deps, origin, d.dueAt);
    } catch (error) {
      failed++;
      log?.error('subscription not advanced', { tenant_id: d.tenantId, subscription_id: d.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  // Pull: the charges the steps wrote pending go out batched (per network and token).
  let charges = 0;
  if (deps.collector) {
    try {
      charges = (await deps.collector.dispatchCharges()).charges;
    } catch (error) {
      log?.error('subscription charges not sent', { error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { due: due.length, steps, failed, charges };
}
