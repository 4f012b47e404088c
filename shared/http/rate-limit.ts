import { RateLimitError } from '../domain/errors.js';
import type { Tenant } from '../domain/tenant.js';
import { asWriteItem } from '../store/transact.js';
import { countItem, countRequest, type Counted, type HourLimits } from '../store/usage.js';
import type { AnyRoute, UsageGuard } from './route.js';

/**
 * Per-tenant hourly limits (1,000 requests and 100 payment creations by default; tenant settings
 * override). Every answer to an authenticated request carries X-RateLimit-*; a refusal adds Retry-After.
 *
 * A request is counted once: by its own counter update before the route (`checkRateLimits`), or, on a route that
 * counts it in its own write, inside that write's transaction (`deferCount`), whose condition keeps the limits.
 */
export interface RateCheck {
  readonly headers: Record<string, string>;
  readonly refusal: RateLimitError | null;
}

const limitsOf = (route: AnyRoute, tenant: Tenant): HourLimits => ({
  requests: tenant.settings.requests_per_hour,
  bucket: route.rateBucket === 'payment_creations' ? tenant.settings.payment_creations_per_hour : null,
});

/** The headers for `counted` (this request included), and the refusal when it is past a limit. */
function judge(route: AnyRoute, tenant: Tenant, now: Date, counted: Counted): RateCheck {
  const limits = limitsOf(route, tenant);
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limits.requests),
    'X-RateLimit-Remaining': String(Math.max(0, limits.requests - counted.hourRequests)),
    'X-RateLimit-Reset': String(counted.resetAt),
  };
  const refuse = (bucketLimit: number): RateCheck => {
    const error = new RateLimitError(Math.max(1, counted.resetAt - Math.floor(now.getTime() / 1000)), bucketLimit);
    return { headers: { ...headers, 'Retry-After': String(error.retryAfter) }, refusal: error };
  };
  if (counted.hourRequests > limits.requests) return refuse(limits.requests);
  if (limits.bucket !== null && (counted.hourBucket ?? 0) > limits.bucket) return refuse(limits.bucket);
  return { headers, refusal: null };
}

export async function checkRateLimits(route: AnyRoute, tenant: Tenant, now: Date): Promise<RateCheck> {
  return judge(route, tenant, now, await countRequest(tenant.id, now, route.rateBucket));
}

/** A request whose count is left to the route's own write (shared/http/pipeline-core.ts). */
export interface DeferredCount {
  /** X-RateLimit-* of the request as if counted now. */
  readonly headers: Record<string, string>;
  readonly guard: UsageGuard;
  /**
   * Once the route is done: unless it succeeded with the guard's item in its write, the request is counted as
   * `checkRateLimits` counts it, its headers into `headers`; a failed request so counted past a limit is refused
   * (thrown), as it was when the count came first; that is also the answer when the item's own condition
   * refused the write.
   */
  settle(succeeded: boolean, headers: Record<string, string>): Promise<void>;
}

/**
 * The count of a route that counts its request in its own write, given the hour's counts read with the credential
 * (nothing counted yet); null when those are already at a limit: the request is then counted and refused as
 * usual (`checkRateLimits`).
 */
export function deferCount(route: AnyRoute, tenant: Tenant, now: Date, read: Counted): DeferredCount | null {
  const limits = limitsOf(route, tenant);
  if (read.hourRequests >= limits.requests || (limits.bucket !== null && (read.hourBucket ?? 0) >= limits.bucket)) return null;
  // X-RateLimit-Remaining as of the read plus this request: concurrent requests may be counted meanwhile, but the
  // item's condition keeps the limits exactly.
  const { headers } = judge(route, tenant, now, { ...read, hourRequests: read.hourRequests + 1 });
  let taken = false;
  return {
    headers,
    guard: {
      countItem: (dayTotal) => {
        taken = true;
        return asWriteItem(countItem(tenant.id, now, route.rateBucket, limits, dayTotal));
      },
    },
    settle: async (succeeded, into) => {
      if (succeeded && taken) return;
      const check = await checkRateLimits(route, tenant, now);
      Object.assign(into, check.headers);
      // A success is answered as it is: its work is done, and it is counted.
      if (check.refusal && !succeeded) throw check.refusal;
    },
  };
}
