import { FIRST_LANE_HOLD_MS, FIRST_LANE_TENANT_LIMIT, FIRST_LANE_WAIT_MS } from '../../domain/webhooks.js';

/**
 * The first lane's places per tenant, in one worker process (DESIGN section 7): at most `limit` first attempts of a
 * tenant in flight at once. One more waits at most `waitMs` for a place; without one it is handed to the retry
 * lane. Once a tenant's wait ran out, its next ones do not wait until one of its places frees: a receiver that
 * hangs costs its tenant's later messages no waiting, and the batches they share with other tenants none.
 *
 * A tenant one of whose first attempts got no answer in time (`timedOut`) gets no place for `holdMs` after: its
 * receiver's slow mark is written by then, but plans that read the settings before it was would otherwise try
 * the receiver again.
 *
 * A healthy receiver frees its places in milliseconds, so its tenant's bursts wait little or not at all. On AWS a
 * worker process runs one batch (at most 10 messages) at a time, so the limit binds there only for a tenant that
 * has more than `limit` messages in one batch; on the local stack, where one process runs five batches at once, it
 * keeps one tenant from holding every batch.
 */
export class TenantGate {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly stalled = new Set<string>();
  private readonly heldUntil = new Map<string, number>();

  constructor(
    private readonly limit = FIRST_LANE_TENANT_LIMIT,
    private readonly waitMs = FIRST_LANE_WAIT_MS,
    private readonly holdMs = FIRST_LANE_HOLD_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** One of the tenant's first attempts got no answer in time: no place for it for a while. */
  timedOut(tenantId: string): void {
    this.heldUntil.set(tenantId, this.now() + this.holdMs);
  }

  /** First attempts of `tenantId` in flight now. */
  count(tenantId: string): number {
    return this.inFlight.get(tenantId) ?? 0;
  }

  /** A place for one first attempt of `tenantId` (call the returned function when done), or null: hand it over. */
  async enter(tenantId: string): Promise<(() => void) | null> {
    const held = this.heldUntil.get(tenantId);
    if (held !== undefined) {
      if (held > this.now()) return null;
      this.heldUntil.delete(tenantId);
    }
    if (this.count(tenantId) < this.limit) return this.take(tenantId);
    if (this.stalled.has(tenantId) || this.waitMs <= 0) return null;
    const got = await new Promise<boolean>((resolve) => {
      const queue = this.waiting.get(tenantId) ?? [];
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const list = this.waiting.get(tenantId) ?? [];
        const i = list.indexOf(wake);
        if (i >= 0) list.splice(i, 1);
        resolve(false);
      }, this.waitMs);
      queue.push(wake);
      this.waiting.set(tenantId, queue);
    });
    if (!got) {
      this.stalled.add(tenantId);
      return null;
    }
    // The place was passed on to this caller as it was (the count unchanged).
    return this.leaver(tenantId);
  }

  private take(tenantId: string): () => void {
    this.inFlight.set(tenantId, this.count(tenantId) + 1);
    return this.leaver(tenantId);
  }

  private leaver(tenantId: string): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.stalled.delete(tenantId);
      const queue = this.waiting.get(tenantId);
      const next = queue?.shift();
      if (queue && queue.length === 0) this.waiting.delete(tenantId);
      if (next) {
        next();
        return;
      }
      const n = this.count(tenantId) - 1;
      if (n > 0) this.inFlight.set(tenantId, n);
      else this.inFlight.delete(tenantId);
    };
  }
}
