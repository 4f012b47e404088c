/**
 * Outcomes of `Promise.allSettled` (or `settledPool`, shared/usecases/chain-tx/items.ts) read through guards, as
 * the domain's statuses are: what completed, and the first failure to throw again once every one has run.
 */
export const isFulfilled = <T>(result: PromiseSettledResult<T>): result is PromiseFulfilledResult<T> => result.status === 'fulfilled';

export const isRejected = <T>(result: PromiseSettledResult<T>): result is PromiseRejectedResult => result.status === 'rejected';
