/**
 * Which waiting payments a scanner pass looks up in a UTXO network's mempool: at most a budget per pass (each lookup
 * is one call to the chain's API), those never looked up first, then the longest since their last lookup. With N
 * payments waiting and a budget B, every payment is looked up at least once every ceil(N / B) passes. The list of
 * waiting payments (a read of the store's queue, which grows with them) is read again at most every `refreshMs`, not
 * every pass: a payment listed a little late is looked up a little late, and a listed one that moved on meanwhile
 * costs a lookup that records nothing (each record re-reads its payment). One rotation per network loop
 * (run-scanners.ts); a pass without one reads the list and looks up its first B.
 */
export class MempoolRotation {
  readonly budget: number;
  readonly refreshMs: number;
  #pass = 0;
  readonly #lastLookup = new Map<string, number>();
  #listed: { readonly at: number; readonly list: readonly unknown[] } | undefined;

  constructor(budget: number, refreshMs = 0) {
    if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`A mempool budget is a whole number of lookups, not ${budget}`);
    if (!(refreshMs >= 0)) throw new RangeError(`A refresh interval is a non-negative number of milliseconds, not ${refreshMs}`);
    this.budget = budget;
    this.refreshMs = refreshMs;
  }

  /**
   * This pass's lookups among the waiting payments (`list` reads them; each named by tenant and id), less those
   * `skip` names (recorded by this pass already), remembered for the next passes.
   */
  async pick<T extends { readonly tenantId: string; readonly id: string }>(
    list: () => Promise<readonly T[]>,
    now: Date,
    skip: (c: T) => boolean = () => false,
  ): Promise<T[]> {
    if (this.budget === 0) return [];
    if (!this.#listed || now.getTime() - this.#listed.at >= this.refreshMs || now.getTime() < this.#listed.at) {
      this.#listed = { at: now.getTime(), list: await list() };
    }
    const candidates = (this.#listed.list as readonly T[]).filter((c) => !skip(c));
    this.#pass += 1;
    const keyOf = (c: T) => `${c.tenantId}:${c.id}`;
    const ordered = candidates
      .map((c, i) => ({ c, i, last: this.#lastLookup.get(keyOf(c)) ?? 0 }))
      .sort((a, b) => a.last - b.last || a.i - b.i)
      .slice(0, this.budget)
      .map((x) => x.c);
    // Forget the payments no longer listed (paid, expired): the map holds the listed ones only.
    const live = new Set(candidates.map(keyOf));
    for (const k of this.#lastLookup.keys()) if (!live.has(k)) this.#lastLookup.delete(k);
    for (const c of ordered) this.#lastLookup.set(keyOf(c), this.#pass);
    return ordered;
  }
}

/** Mempool lookups per pass unless configured (`BTC_MEMPOOL_LOOKUPS_PER_PASS`). */
export const DEFAULT_MEMPOOL_BUDGET = 100;
/** How long a scanner loop keeps its list of waiting payments before reading it again. */
export const DEFAULT_MEMPOOL_REFRESH_MS = 10_000;
