/**
 * Which waiting payments a scanner pass looks up in a UTXO network's mempool: at most a budget per pass (each lookup
 * is one call to the chain's API), those never looked up first, then the longest since their last lookup. With N
 * payments waiting and a budget B, every payment is looked up at least once every ceil(N / B) passes. One rotation
 * per network loop (run-scanners.ts); a pass without one looks up the first B in the order listed.
 */
export class MempoolRotation {
  readonly budget: number;
  #pass = 0;
  readonly #lastLookup = new Map<string, number>();

  constructor(budget: number) {
    if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`A mempool budget is a whole number of lookups, not ${budget}`);
    this.budget = budget;
  }

  /** This pass's lookups among `candidates` (each named by tenant and id), remembered for the next passes. */
  pick<T extends { readonly tenantId: string; readonly id: string }>(candidates: readonly T[]): T[] {
    this.#pass += 1;
    const keyOf = (c: T) => `${c.tenantId}:${c.id}`;
    const ordered = candidates
      .map((c, i) => ({ c, i, last: this.#lastLookup.get(keyOf(c)) ?? 0 }))
      .sort((a, b) => a.last - b.last || a.i - b.i)
      .slice(0, this.budget)
      .map((x) => x.c);
    // Forget the payments no longer waiting (paid, expired): the map holds the waiting ones only.
    const live = new Set(candidates.map(keyOf));
    for (const k of this.#lastLookup.keys()) if (!live.has(k)) this.#lastLookup.delete(k);
    for (const c of ordered) this.#lastLookup.set(keyOf(c), this.#pass);
    return ordered;
  }
}

/** Mempool lookups per pass unless configured. */
export const DEFAULT_MEMPOOL_BUDGET = 100;
