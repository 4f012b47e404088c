import { EVENTS } from './events.js';
import type { EventType } from './events.js';
import type { PaymentEvent, PaymentState, PaymentStatus } from './payments.js';
import { depositMergedPayload, depositReceivedPayload, statusUpdatePayload } from './payments.js';

/**
 * A payment's events ride on its own stored item (shared/store/payments.ts), not in outbox items of their own:
 * each event of a change is kept as a reference (its type and key, and what its data was made from: the status
 * it announces and the one before, or its deposit), and its data is made again from the state saved with it by the
 * functions the transition used; it happened when that state was last updated (every transition that announces
 * something sets `updatedAt` to its time). The item's write and the stream record of that write therefore carry
 * every event of the change, in the change's own transaction, at the cost of a few hundred bytes on one item.
 */
export interface PaymentEventRef {
  readonly type: EventType;
  /** The event's natural key within the payment (`status:3:confirmed`, `deposit:<id>:2`, ...). */
  readonly key: string;
  /** A status event: the status it announces and the one before (null: the payment's creation). */
  readonly status?: PaymentStatus;
  readonly previous?: PaymentStatus | null;
  /** A deposit event: the deposit's id. */
  readonly deposit?: string;
}

const DEPOSIT_EVENTS: readonly EventType[] = [EVENTS.depositReceived, EVENTS.depositMerged];

/** The reference an event of a payment change is stored as. */
export function paymentEventRef(event: PaymentEvent): PaymentEventRef {
  const data = event.payload;
  if (DEPOSIT_EVENTS.includes(event.type)) return { type: event.type, key: event.key, deposit: String(data.deposit_id) };
  return { type: event.type, key: event.key, status: data.status as PaymentStatus, previous: (data.previous_status as PaymentStatus | null) ?? null };
}

/** The event a reference names, its data made from the payment as saved with it. */
export function paymentEventOf(state: PaymentState, ref: PaymentEventRef): PaymentEvent {
  if (ref.deposit === undefined) {
    if (ref.status === undefined) throw new TypeError(`The payment event ${ref.key} names neither a status nor a deposit`);
    return { type: ref.type, key: ref.key, payload: statusUpdatePayload({ ...state, status: ref.status }, ref.previous ?? null) };
  }
  const deposit = state.deposits.find((d) => d.id === ref.deposit);
  if (!deposit) throw new TypeError(`The payment event ${ref.key} names a deposit the payment does not hold`);
  if (ref.type !== EVENTS.depositMerged) return { type: ref.type, key: ref.key, payload: depositReceivedPayload(state, deposit) };
  if (state.sweepTxHash === null) throw new TypeError(`The payment event ${ref.key} is a merge without a sweep`);
  return { type: ref.type, key: ref.key, payload: depositMergedPayload(state, deposit, state.sweepTxHash) };
}
