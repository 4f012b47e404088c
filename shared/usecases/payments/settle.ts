import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '../../domain/errors.js';
import { findCurrency } from '../../domain/currencies.js';
import type { PaymentChange, PaymentState } from '../../domain/payments.js';
import { andThen, isSweepDue, isSweeping, transition } from '../../domain/payments.js';
import type { UsdRates } from '../../domain/rates.js';
import { usdRate } from '../../domain/rates.js';
import { WalletGoneError } from '../../domain/wallets.js';
import { itemOf, parseItem, settledPool } from '../chain-tx/items.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import type { PaymentsDeps, SweepOutcome, SweepPort, SweepRequest } from './ports.js';

/**
 * From `confirmed` to `completed`: the payment moves to `sending` (the deposit is forwarded to the treasury
 * through the factory), then, once the sweep is mined, to `completed` while the merchant's balance (main, or
 * the wallet_id sub-account) is credited net of the platform fee, in ONE transaction with the payment's new
 * state and its events (the `post_entry` effect of the payment's transition).
 *
 * Sweeps are batched: the payments of one currency (one network and token, or its native coin) a scanner pass
 * finds confirmed are swept by ONE factory call (`deployAndFlush(salts, token)`), up to the port's `maxSalts` a call. Each
 * payment is saved `sending` with the batch's reference (`sweep:<uuid>`) as its `sweepReference` (a payment that
 * reaches `confirmed` in the same pass is saved once, confirmed and sending composed: `andThen`); then ONE sweep is
 * requested, carrying exactly the payments saved, as items (`<tenant>:<payment>`, in salt order). Its result settles
 * each payment its request carries that is still `sending` with that reference: completed and credited, or back
 * to `confirmed`. A payment whose batched sweep failed is swept alone after (one deposit cannot hold others back).
 *
 * Recovery (a pass that died between the saves and the request): a `sending` payment idle for
 * `SWEEP_RECOVERY_AFTER_MS` is left to its batch while the batch's request carries it; otherwise (never
 * requested: the reference is claimed first, so a late pass cannot send it; or cancelled, as a batch of several
 * that cannot be estimated is) it goes back to `confirmed` and is swept again, alone, in the same write.
 *
 * Sweeping sits behind a port: the chain-transaction engine (nonce manager, KMS signing, receipts), or a direct
 * factory call with the hot-wallet signer (tests, local), which answers `done` at once.
 */
export type { SweepOutcome, SweepPort, SweepRequest };

/** Mined now: the sweep's transaction hash (a port answering at once); null when its result comes later. */
export const sweptNow = (outcome: SweepOutcome): string | null => ('txHash' in outcome ? outcome.txHash : null);

/** The values of the calls that resolved, in order. */
const fulfilled = <T>(settled: readonly PromiseSettledResult<T>[]): T[] => settled.flatMap((s) => ('value' in s ? [s.value] : []));
/** The first call that failed, if one did (and `counted` says its error counts). */
const firstFailure = (
  settled: readonly PromiseSettledResult<unknown>[],
  counted: (reason: unknown) => boolean = () => true,
): PromiseRejectedResult | undefined => settled.find((s): s is PromiseRejectedResult => 'reason' in s && counted(s.reason));

/** A batched sweep's reference: its chain-tx request's, and the `sweepReference` of each payment it takes. */
export const batchSweepReference = (id: string): string => `sweep:${id}`;
export const isBatchSweepReference = (reference: string): boolean => reference.startsWith('sweep:');

/** The reference of a payment's own sweep, as requested before sweeps were batched (their results still settle). */
export const sweepReference = (p: Pick<PaymentState, 'tenantId' | 'id'>): string => `payment:${p.tenantId}:${p.id}`;

/** A payment as a sweep request's item. */
export const sweepItemOf = (p: Pick<PaymentState, 'tenantId' | 'id'>): string => itemOf(p);

/** The most deposits one sweep takes unless configured (`SWEEP_BATCH_MAX_SALTS`). */
export const DEFAULT_SWEEP_BATCH_MAX = 50;
/** A `sending` payment of a batch idle this long is checked against its batch's request (the recovery). */
export const SWEEP_RECOVERY_AFTER_MS = 5 * 60_000;

/**
 * A payment to sweep now: as stored, and, when it is not `confirmed` there yet, the unsaved change that makes it
 * so (its confirmations, or its failed sweep's return): saved together with its sweep, in one write.
 */
export interface DueSweep {
  readonly payment: PaymentState;
  readonly confirmed?: PaymentChange;
}

const confirmedState = (due: DueSweep): PaymentState => due.confirmed?.state ?? due.payment;

/**
 * The sweeps of a pass (pure): the due payments by currency (one network and token, or the native coin), in the
 * order they come, at most `maxSalts` a sweep; a payment whose batched sweep failed (confirmed with a
 * `sweepReference`) alone.
 */
export function planSweeps(due: readonly DueSweep[], maxSalts: number): DueSweep[][] {
  if (!Number.isInteger(maxSalts) || maxSalts < 1) throw new RangeError(`a sweep takes at least one deposit, not ${maxSalts}`);
  const byCurrency = new Map<string, DueSweep[]>();
  const alone: DueSweep[][] = [];
  for (const d of due) {
    const p = confirmedState(d);
    if (!isSweepDue(p)) throw new RangeError(`payment ${p.id} is ${p.status}, not confirmed`);
    if (p.sweepReference !== undefined) {
      alone.push([d]);
      continue;
    }
    const key = `${p.network}:${p.currency}`;
    byCurrency.set(key, [...(byCurrency.get(key) ?? []), d]);
  }
  const batches: DueSweep[][] = [];
  for (const group of byCurrency.values()) for (let i = 0; i < group.length; i += maxSalts) batches.push(group.slice(i, i + maxSalts));
  return [...batches, ...alone];
}

type SettleDeps = Pick<PaymentsDeps, 'payments' | 'rates' | 'contracts' | 'clock' | 'excessRefund' | 'linkCompletion' | 'subscriptionCallIn'>;
/** The ports a completion writes through: the payment, a refund opened with its credit, its link's count. */
type CompletionDeps = Pick<PaymentsDeps, 'payments' | 'excessRefund' | 'linkCompletion' | 'subscriptionCallIn'>;
/** Reads of a link's count before a completion gives up (each retry follows another completion of the link). */
const LINK_ATTEMPTS = 6;

export interface SweepDeps extends SettleDeps {
  readonly sweep: SweepPort;
}

/**
 * Sweeps the due payments, batched (`planSweeps`); returns how many completed at once (a port answering `done`).
 * A batch that fails does not stop the others: the first error is thrown after all were tried.
 */
export async function sweepDue(due: readonly DueSweep[], deps: SweepDeps, now: Date): Promise<number> {
  let completed = 0;
  let failure: { error: unknown } | undefined;
  for (const batch of planSweeps(due, deps.sweep.maxSalts ?? DEFAULT_SWEEP_BATCH_MAX)) {
    try {
      completed += await sweepBatch(batch, deps, now);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
  return completed;
}

/**
 * One sweep: every payment saved `sending` with the batch's reference (8 saves at a time), then ONE request carrying
 * those saved. A payment that moved meanwhile (ConflictError) is left out and seen again by the next pass. A save
 * that failed otherwise may still have been written: the payment then records a batch whose request does not carry
 * it, and the recovery returns it to `confirmed`; that error is thrown once the others are asked for.
 */
async function sweepBatch(batch: readonly DueSweep[], deps: SweepDeps, now: Date): Promise<number> {
  const reference = batchSweepReference(randomUUID());
  const started = { kind: 'sweep_started', reference } as const;
  const saved = await settledPool(batch, 8, (d) =>
    deps.payments.save(d.payment, d.confirmed ? andThen(d.confirmed, started, now) : transition(d.payment, started, now), now),
  );
  const members = fulfilled(saved);
  const failed = firstFailure(saved, (reason) => !(reason instanceof ConflictError));
  const first = members[0];
  let completed = 0;
  if (first) {
    const currency = findCurrency(first.currency);
    const outcome = await deps.sweep.requestSweep({
      reference,
      network: first.network,
      currency: first.currency,
      token: currency && !currency.native ? deps.contracts(currency) : null,
      salts: members.map((p) => p.salt),
      items: members.map(sweepItemOf),
    });
    const txHash = sweptNow(outcome);
    if (txHash !== null) {
      const at = new Date(Math.max(now.getTime(), deps.clock.now().getTime()));
      const rates = usdRatesOf(await currentRates(deps.rates, at));
      for (const p of members) await completeWith(p, txHash, rates, deps, at);
      completed = members.length;
    }
  }
  if (failed) throw failed.reason;
  return completed;
}

/**
 * The recovery of a pass's `sending` payments of batches, idle `SWEEP_RECOVERY_AFTER_MS`: those their batch's
 * request does not carry, as due again (their return to `confirmed`, saved with their next sweep). Nothing where the
 * port cannot tell.
 */
export async function strandedSweeps(sending: readonly PaymentState[], deps: Pick<SweepDeps, 'sweep'>, now: Date): Promise<DueSweep[]> {
  const { sweep } = deps;
  if (!sweep.carried) return [];
  const byReference = new Map<string, PaymentState[]>();
  for (const p of sending) {
    if (!isSweeping(p) || p.sweepReference === undefined || now.getTime() - Date.parse(p.updatedAt) < SWEEP_RECOVERY_AFTER_MS) continue;
    const key = `${p.network} ${p.sweepReference}`;
    byReference.set(key, [...(byReference.get(key) ?? []), p]);
  }
  const due: DueSweep[] = [];
  for (const group of byReference.values()) {
    const first = group[0] as PaymentState;
    const items = new Set(await sweep.carried(first.network, first.sweepReference as string));
    for (const p of group) if (!items.has(sweepItemOf(p))) due.push({ payment: p, confirmed: transition(p, { kind: 'sweep_failed' }, now) });
  }
  return due;
}

/**
 * The sweep is mined: `sending` -> `completed`, merchant credited, in one transaction. Idempotent by entry id. A
 * payment whose wallet was deleted meanwhile (the ledger refuses the credit: WalletGoneError) credits main.
 */
export async function completePayment(
  payment: PaymentState,
  sweepTxHash: string,
  deps: Pick<PaymentsDeps, 'payments' | 'rates'> & CompletionDeps,
  now: Date,
): Promise<PaymentState> {
  return completeWith(payment, sweepTxHash, usdRatesOf(await currentRates(deps.rates, now)), deps, now);
}

async function completeWith(payment: PaymentState, sweepTxHash: string, rates: UsdRates, deps: CompletionDeps, now: Date): Promise<PaymentState> {
  const fact = { kind: 'sweep_completed', txHash: sweepTxHash, usdRate: usdRate(payment.currency, rates) ?? null } as const;
  // A refund of the excess the tenant has opened automatically commits with the credit that holds it.
  const refund = (await deps.excessRefund?.(payment, now)) ?? null;
  // A subscription's payment calls its subscription in within this transaction (it becomes due now).
  const callIn = payment.subscription && deps.subscriptionCallIn ? [deps.subscriptionCallIn(payment.tenantId, payment.subscription.id, now)] : [];
  for (let attempt = 1; ; attempt++) {
    // A payment link's count moves in this transaction, conditioned on what was read (counted, or over the limit).
    const link = (await deps.linkCompletion?.(payment)) ?? null;
    const linked = { linkOverLimit: link?.overLimit === true };
    const items = [...(link?.items ?? []), ...callIn];
    try {
      try {
        return await deps.payments.save(payment, transition(payment, { ...fact, ...linked, refundHold: refund?.hold }, now), now, [
          ...(refund?.items ?? []),
          ...items,
        ]);
      } catch (error) {
        if (!(error instanceof WalletGoneError)) throw error;
        // Credited to main instead: the refund, held on the wallet it names, is not opened (the merchant may open one).
        return await deps.payments.save(payment, transition(payment, { ...fact, ...linked, walletGone: true }, now), now, items);
      }
    } catch (error) {
      // Refused while the payment is as read: the link's count moved since it was read (another of its payments
      // completed). Read it again; any other refusal (the payment moved) stands.
      if (!link || !(error instanceof ConflictError) || attempt >= LINK_ATTEMPTS) throw error;
      if ((await deps.payments.get(payment.tenantId, payment.id))?.version !== payment.version) throw error;
    }
  }
}

/**
 * For the chain-tx engine's `chain_tx.confirmed` / `chain_tx.failed` events of a single payment's sweep
 * (`payment:<tenant>:<id>`, requested before sweeps were batched): completes the payment or puts it back to
 * `confirmed`. A payment a batch has taken since is the batch's.
 */
export async function onSweepResult(
  reference: string,
  result: { ok: true; txHash: string } | { ok: false },
  deps: Pick<PaymentsDeps, 'payments' | 'rates'> & CompletionDeps,
  now: Date,
): Promise<PaymentState | null> {
  const m = /^payment:([^:]+):([^:]+)$/.exec(reference);
  if (!m) return null;
  const payment = await deps.payments.get(m[1] ?? '', m[2] ?? '');
  if (!payment || !isSweeping(payment) || payment.sweepReference !== undefined) return payment;
  if (result.ok) return completePayment(payment, result.txHash, deps, now);
  return deps.payments.save(payment, transition(payment, { kind: 'sweep_failed' }, now), now);
}

/** What a batched sweep's result is settled from: its request (reference and items). */
export interface SweepRequestRecords {
  get(requestId: string): Promise<{ readonly reference: string; readonly items?: readonly string[] } | undefined>;
}

export interface SweepBatchSettlement {
  readonly completed: number;
  /** Back to `confirmed` (the sweep failed). */
  readonly returned: number;
  /** Not (or no longer) `sending` with this batch: a repeated result, or recovered meanwhile. */
  readonly unchanged: number;
}

/**
 * The result of a batched sweep's request (`requestId`, reference `sweep:<uuid>`): each payment it carries that is
 * still `sending` with that reference completes with the mined hash (credited once: idempotent by entry id), or,
 * the sweep having failed, goes back to `confirmed` (swept alone on a later pass). 8 payments at a time; the first
 * error is thrown once all were tried (the message comes back; what was settled stays settled).
 */
export async function onSweepBatchResult(
  requestId: string,
  result: { ok: true; txHash: string } | { ok: false },
  deps: Pick<PaymentsDeps, 'payments' | 'rates'> & CompletionDeps & { readonly sweeps: SweepRequestRecords },
  now: Date,
): Promise<SweepBatchSettlement> {
  const batch = await deps.sweeps.get(requestId);
  if (!batch) throw new NotFoundError(`No chain-tx request ${requestId}`);
  const rates = result.ok ? usdRatesOf(await currentRates(deps.rates, now)) : null;
  const counts = { completed: 0, returned: 0, unchanged: 0 };
  const settled = await settledPool(batch.items ?? [], 8, async (item) => {
    const { tenantId, id } = parseItem(item);
    const p = await deps.payments.get(tenantId, id);
    if (!p || !isSweeping(p) || p.sweepReference !== batch.reference) {
      counts.unchanged++;
      return;
    }
    if (result.ok && rates) {
      await completeWith(p, result.txHash, rates, deps, now);
      counts.completed++;
    } else {
      await deps.payments.save(p, transition(p, { kind: 'sweep_failed' }, now), now);
      counts.returned++;
    }
  });
  const failure = firstFailure(settled);
  if (failure) throw failure.reason;
  return counts;
}
