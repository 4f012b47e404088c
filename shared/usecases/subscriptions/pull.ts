import { findCurrency } from '../../domain/currencies.js';
import { ValidationError } from '../../domain/errors.js';
import { platformFee } from '../../domain/fees.js';
import { lt } from '../../domain/money.js';
import type { PlanState } from '../../domain/plans.js';
import type { PullMandate, SubscriptionState } from '../../domain/subscriptions.js';
import { chargeReference, mandateStart, parseChargeReference, transition } from '../../domain/subscriptions.js';
import type { Tenant } from '../../domain/tenant.js';
import { settledPool } from '../chain-tx/items.js';
import type { Collector, SubscriptionsDeps } from './ports.js';

/** The real time (stored records) and the tenant's (its test clock), as ./subscriptions.ts `Now`. */
interface Now {
  readonly real: Date;
  readonly tenant: Date;
}

/**
 * Pull collection (issue 30, docs/subscriptions-pull.md): the subscriber's own wallet is charged each period by the
 * collector contract, under a mandate the subscriber approves (the token's allowance) and authorises (the terms).
 *
 * - Creation: the plan's currency must be an EVM stablecoin priced in USD (a stablecoin unit is a dollar: the caps,
 *   fixed on chain, are the plan's amount in the token's units) on a network whose collector is configured.
 * - Activation: while `incomplete`, the advancer looks on chain every minute (`approvalSeen`: the mandate authorised
 *   and not revoked, the allowance covering a charge); once seen, cycle 0 opens with its charge.
 * - Each cycle's charge (keyed by the period) is written pending in the SAME transaction as the cycle record and the
 *   subscription's advance: a period is charged at most once, never above the cap (exactly the per-charge cap; the
 *   contract refuses more anyway), and none after cancel (a canceled subscription opens no cycle). The advancer's run
 *   then sends the pending charges batched (`dispatchCharges`): per network and token, ONE chain-tx request
 *   (purpose `subscription_charge`, a `chargeBatch`), created in the transaction that takes them out of the pending.
 * - The batch's result (`chain_tx.confirmed` / `failed`, through the chain-results queue) settles each cycle: `Charged` ->
 *   paid, the merchant credited in the same transaction; `ChargeFailed` or a failed transaction -> the cycle failed
 *   (past_due, expired after grace_days; `revoked` expires it at once). A `transfer_failed` (or failed transaction)
 *   charge is retried a day later while within the grace (`retryCharge`: a new attempt of the same period).
 */

export type PullDeps = Pick<SubscriptionsDeps, 'subscriptions' | 'tenants' | 'collector'>;

function requireCollector(deps: Pick<SubscriptionsDeps, 'collector'>): Collector {
  if (!deps.collector) throw new Error('This worker has no subscription collector wired');
  return deps.collector;
}

/** The mandate of a new pull subscription of `plan` (ValidationError: pull is not offered for it). */
export async function pullMandate(
  input: { readonly subscriptionId: string; readonly plan: PlanState; readonly walletAddress: string; readonly now: Date },
  deps: Pick<SubscriptionsDeps, 'mandates'>,
): Promise<PullMandate> {
  const collector = deps.mandates;
  if (!collector) throw ValidationError.field('collection', 'This deployment has no subscription collector contract configured; use "push".');
  const { plan } = input;
  if (plan.priceCurrency !== 'USD')
    throw ValidationError.field(
      'collection',
      `Pull collection charges a dollar stablecoin the plan's amount: the plan must be priced in USD, not ${plan.priceCurrency}.`,
    );
  const { mandate } = await collector.mandate({
    subscriptionId: input.subscriptionId,
    currency: plan.currency,
    amount: plan.amount,
    subscriber: input.walletAddress,
    interval: plan.interval,
    intervalCount: plan.intervalCount,
    start: mandateStart(plan, input.now),
  });
  return mandate;
}

/** The platform fee a charge of the plan's amount pays (the tenant's transaction fee, as a payment's), at most the amount. */
function chargeFee(s: SubscriptionState, tenant: Tenant): string {
  const currency = findCurrency(s.terms.currency);
  if (!currency) throw new Error(`unknown currency ${s.terms.currency}`);
  const fee = platformFee({ amount: s.terms.amount, percent: tenant.settings.transaction_fee, precision: currency.displayPrecision, minFee: currency.minFee });
  return lt(fee, s.terms.amount) ? fee : s.terms.amount;
}

/** Opens the next period's cycle of a pull subscription with its charge: ONE transaction (subscription, cycle, request). */
export async function openCharge(s: SubscriptionState, now: Now, deps: PullDeps): Promise<SubscriptionState> {
  const collector = requireCollector(deps);
  const mandate = s.mandate;
  if (!mandate) throw new Error(`subscription ${s.id} has no mandate`);
  const tenant = await deps.tenants.get(s.tenantId);
  if (!tenant) throw new Error(`no tenant ${s.tenantId}`);
  const index = s.cycleIndex + 1;
  const units = mandate.perChargeCap;
  const items = await collector.chargeItems({ tenantId: s.tenantId, reference: chargeReference(s.tenantId, s.id, index), mandate, period: index, units });
  const change = transition(s, { kind: 'open_charge', units, fee: chargeFee(s, tenant) }, now.tenant);
  return deps.subscriptions.save(s, change, now.real, () => items);
}

/** The open cycle's failed charge sent again (a new attempt of the same period), pending in the same transaction. */
export async function retryCharge(s: SubscriptionState, now: Now, deps: PullDeps): Promise<SubscriptionState> {
  const collector = requireCollector(deps);
  const mandate = s.mandate;
  if (!mandate) throw new Error(`subscription ${s.id} has no mandate`);
  const change = transition(s, { kind: 'retry_charge' }, now.tenant);
  const charge = change.cycle?.record.charge;
  if (!change.cycle || !charge) throw new Error('the retry wrote no charge');
  const items = await collector.chargeItems({
    tenantId: s.tenantId,
    reference: charge.reference,
    mandate,
    period: change.cycle.record.index,
    units: charge.units,
  });
  return deps.subscriptions.save(s, change, now.real, () => items);
}

/** An incomplete pull subscription: its first charge once the chain shows the mandate, else looked at again later. */
export async function checkApproval(s: SubscriptionState, now: Now, deps: PullDeps): Promise<SubscriptionState> {
  const collector = requireCollector(deps);
  if (s.mandate && (await collector.approvalSeen(s.mandate))) return openCharge(s, now, deps);
  return deps.subscriptions.save(s, transition(s, { kind: 'check_approval' }, now.tenant), now.real);
}

/**
 * A batch of charges' chain result (purpose `subscription_charge`): each charge its request carries settles its
 * cycle (`onChargeResult`), 8 at a time; every charge is tried, the first failure thrown after (the result is
 * redelivered, and the charges already settled are left as they are).
 */
export async function onChargeBatchResult(
  requestId: string,
  result: { readonly ok: true; readonly txHash: string } | { readonly ok: false },
  now: Date,
  deps: Pick<SubscriptionsDeps, 'subscriptions' | 'collector' | 'clocks'>,
): Promise<{ readonly charged: number; readonly failed: number; readonly unchanged: number }> {
  const references = await requireCollector(deps).batchCharges(requestId);
  const counts = { charged: 0, failed: 0, unchanged: 0 };
  const settled = await settledPool(references, 8, async (reference) => {
    counts[await onChargeResult(reference, result, now, deps)]++;
  });
  const failure = settled.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
  return counts;
}

/** Why a charge whose transaction did not confirm failed. */
export const CHARGE_TX_FAILED = 'chain_tx_failed';

/**
 * A charge's chain result (purpose `subscription_charge`): reads the outcome of the cycle's mandate in the receipt
 * and settles the cycle (credit and all, in one transaction). Idempotent: a cycle already answered is left as it is.
 * Returns what it did.
 */
export async function onChargeResult(
  reference: string,
  result: { readonly ok: true; readonly txHash: string } | { readonly ok: false },
  now: Date,
  deps: Pick<SubscriptionsDeps, 'subscriptions' | 'collector' | 'clocks'>,
): Promise<'charged' | 'failed' | 'unchanged'> {
  const ref = parseChargeReference(reference);
  if (!ref) throw new Error(`not a subscription charge: ${reference}`);
  const collector = requireCollector(deps);
  for (let attempt = 0; attempt < 4; attempt++) {
    const s = await deps.subscriptions.get(ref.tenantId, ref.subscriptionId);
    if (!s?.mandate) throw new Error(`no pull subscription ${ref.subscriptionId}`);
    const cycle = (await deps.subscriptions.cycles(ref.tenantId, ref.subscriptionId)).find((c) => c.index === ref.index);
    if (!cycle?.charge) throw new Error(`no charged cycle ${ref.index} of ${ref.subscriptionId}`);
    // Answered already, or an earlier attempt's (the cycle's charge has moved on to a retry).
    if (cycle.charge.reference !== reference || cycle.charge.txHash !== null || cycle.charge.failure !== null) return 'unchanged';
    let outcome: { ok: true } | { ok: false; reason: string } = { ok: false, reason: CHARGE_TX_FAILED };
    if (result.ok) {
      const read = await collector.chargeOutcome({ network: s.mandate.network, txHash: result.txHash, mandate: s.mandate, period: ref.index });
      if (!read) throw new Error(`The receipt of ${result.txHash} has no outcome of mandate ${s.mandate.mandateId}`);
      outcome = read;
    }
    const tenantNow = new Date(now.getTime() + (await deps.clocks.offsetMs(ref.tenantId)));
    const change = outcome.ok
      ? transition(s, { kind: 'charged', cycle, txHash: result.ok ? result.txHash : '' }, tenantNow)
      : transition(s, { kind: 'charge_failed', cycle, reason: outcome.reason, revoked: outcome.reason === 'revoked' }, tenantNow);
    try {
      await deps.subscriptions.save(s, change, now);
      return outcome.ok ? 'charged' : 'failed';
    } catch (error) {
      const again = await deps.subscriptions.get(ref.tenantId, ref.subscriptionId);
      if (again && again.version !== s.version) continue;
      throw error;
    }
  }
  throw new Error(`subscription ${ref.subscriptionId} kept moving while its charge settled`);
}
