/**
 * A chain-tx request's `items` (what a batched transaction carries, in call-data order) as the batch use cases
 * write and settle them: a batched sweep's payments, a batch payout's withdrawals.
 */

/** A tenant's record (payment, withdrawal) as a request's item: `<tenant>:<id>`. */
export const itemOf = (record: { readonly tenantId: string; readonly id: string }): string => `${record.tenantId}:${record.id}`;

/** The tenant and id an item (`itemOf`) names. */
export function parseItem(item: string): { tenantId: string; id: string } {
  const i = item.lastIndexOf(':');
  return { tenantId: item.slice(0, i), id: item.slice(i + 1) };
}

/**
 * Runs `work` over `list` with at most `width` at once, in order of start; every item is tried, and each outcome
 * is kept in place (as `Promise.allSettled` would give it).
 */
export async function settledPool<T, R>(list: readonly T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const out = new Array<PromiseSettledResult<R>>(list.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, list.length) }, async () => {
    for (let i = next++; i < list.length; i = next++) {
      try {
        out[i] = { status: 'fulfilled', value: await work(list[i] as T, i) };
      } catch (reason) {
        out[i] = { status: 'rejected', reason };
      }
    }
  });
  await Promise.all(lanes);
  return out;
}
