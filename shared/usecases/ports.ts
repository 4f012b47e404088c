/**
 * Ports every area's use cases share. Each area declares its own in `shared/usecases/<area>/ports.ts`; the real
 * adapters live in `shared/store`, `shared/chain`, `shared/queue`, built once per Lambda by `shared/runtime/*`,
 * and tests pass the in-memory fakes of `test/support/fakes`.
 */
import type { Decimal } from '../domain/money.js';

export type { Clock } from '../domain/clock.js';

declare const writeItem: unique symbol;

/**
 * A write that another port prepared to be committed inside a repository's transaction (the Idempotency-Key
 * record of the request, the request's count). Opaque to use cases: they only hand it on.
 */
export interface WriteItem {
  readonly [writeItem]: true;
}

/**
 * Counts the request inside the change's own transaction, where the route counts its request in its write: the
 * item's condition keeps the tenant's hourly limits, so a transaction past one is refused (the pipeline answers 429).
 */
export interface UsageGuard {
  /**
   * The write that counts this request; the pipeline counts it otherwise, when the change does not commit. With
   * `dayTotal`, the same write adds a payment's USD amount to the tenant's total of the day, on condition that the
   * total before it is within `roomUsd` (the daily limit less the amount).
   */
  countItem(dayTotal?: { readonly amountUsd: Decimal; readonly roomUsd: Decimal }): WriteItem;
}

/** Completes an Idempotency-Key record inside the guarded change's own transaction, with the answer to replay. */
export interface IdempotencyGuard<T> {
  /** The write that marks the key done and stores the answer presented from `result`. */
  completeItem(result: T): WriteItem;
}
