import type { ChainResultEvent } from '../../domain/events.js';
import { CHAIN_TX_PURPOSES, chainResultOf } from '../../domain/events.js';
import { isBatchSweepReference } from '../payments/settle.js';
import type { ChainResultPorts } from './ports.js';

/** The failure reason a withdrawal records when its chain transaction did not confirm. */
export const WITHDRAWAL_CHAIN_FAILURE = 'the chain transaction failed';

export type ChainResultOutcome = 'sweep' | 'sweep_batch' | 'withdrawal' | 'withdrawal_batch' | 'subscription_charge' | 'ignored';

/**
 * The result of a chain transaction (`chain_tx.confirmed` / `chain_tx.failed`, parsed with the event catalogue)
 * settles what the request was for: a sweep completes the payment (crediting the merchant) or puts it back to
 * `confirmed` for another sweep (a batched sweep, every payment its request carries); a withdrawal completes (funds leave the ledger) or fails (the hold released).
 * Success is decided once, by `chainResultOf`. Other purposes are not settled here. Idempotent: both
 * settlements ignore a result that no longer applies.
 */
export async function onChainResult(event: ChainResultEvent, deps: Pick<ChainResultPorts, 'settle' | 'clock'>): Promise<ChainResultOutcome> {
  const result = chainResultOf(event);
  const now = deps.clock.now();
  switch (event.payload.purpose) {
    case CHAIN_TX_PURPOSES.withdrawal:
      await deps.settle.withdrawal(event.tenant_id, event.payload.reference, result.ok ? result : { ok: false, reason: WITHDRAWAL_CHAIN_FAILURE }, now);
      return 'withdrawal';
    case CHAIN_TX_PURPOSES.withdrawalBatch:
      // Each withdrawal the batch paid completes; the others are sent singly (never failed by the batch itself).
      if (!deps.settle.withdrawalBatch) throw new Error('This worker does not settle withdrawal batches');
      await deps.settle.withdrawalBatch(event.payload.request_id, result.ok ? result : { ok: false, reason: WITHDRAWAL_CHAIN_FAILURE }, now);
      return 'withdrawal_batch';
    case CHAIN_TX_PURPOSES.sweep:
      if (isBatchSweepReference(event.payload.reference)) {
        if (!deps.settle.sweepBatch) throw new Error('This worker does not settle batched sweeps');
        await deps.settle.sweepBatch(event.payload.request_id, result.ok ? result : { ok: false }, now);
        return 'sweep_batch';
      }
      await deps.settle.sweep(event.payload.reference, result.ok ? result : { ok: false }, now);
      return 'sweep';
    case CHAIN_TX_PURPOSES.subscriptionCharge:
      // A batch of pull subscriptions' charges: each cycle paid (the merchant credited) or failed.
      if (!deps.settle.subscriptionCharges) throw new Error('This worker does not settle subscription charges');
      await deps.settle.subscriptionCharges(event.payload.request_id, result.ok ? result : { ok: false }, now);
      return 'subscription_charge';
    default:
      return 'ignored';
  }
}
