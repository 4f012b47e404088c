import type { ChainTx, ChainTxReason, ChainTxTransition } from '../../domain/chain-tx.js';
import { InvalidChainTxTransitionError, transition } from '../../domain/chain-tx.js';
import { ConflictError } from '../../domain/errors.js';
import type { ChainTxDeps } from './ports.js';

/**
 * How the engine's use cases move a request: the domain's transition, saved by the store with its events and
 * effects in one transaction, conditioned on the version read.
 */

/** Saves the change `fact` makes to `tx`: the request as stored. */
export const apply = (tx: ChainTx, fact: ChainTxTransition, deps: Pick<ChainTxDeps, 'store' | 'clock'>): Promise<ChainTx> =>
  deps.store.save(tx, transition(tx, fact, deps.clock()));

/** Holds the request with `reason` (once: a request already held for it is left as it is). */
export const block = (tx: ChainTx, reason: ChainTxReason, deps: Pick<ChainTxDeps, 'store' | 'clock'>): Promise<ChainTx> =>
  tx.reason === reason ? Promise.resolve(tx) : apply(tx, { type: 'blocked', reason }, deps);

/** Another processor saved the request first (the store's version condition): re-read it and decide again. */
export const lostRace = (error: unknown): boolean => error instanceof ConflictError && !(error instanceof InvalidChainTxTransitionError);
