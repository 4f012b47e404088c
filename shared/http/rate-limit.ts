import { RateLimitError } from '../domain/errors.js';
import type { Tenant } from '../domain/tenant.js';
import { countInWindow, recordUsage } from '../store/usage.js';
import type { Route } from './route.js';

/**
 * Per-tenant hourly limits (1,000 requests and 100 payment creations by default; tenant settings
 * override). Every answer to an authenticated request carries X-RateLimit-*; a refusal adds Retry-After.
 */
export interface RateCheck {
  readonly headers: Record<string, string>;
  readonly refusal: RateLimitError | null;
}

export async function checkRateLimits(route: Route, tenant: Tenant, now: Date): Promise<RateCheck> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const limit = tenant.settings.requests_per_hour;
  const [window] = await Promise.all([countInWindow(tenant.id, 'requests', nowSeconds), recordUsage(tenant.id, now)]);
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - window.count)),
    'X-RateLimit-Reset': String(window.resetAt),
  };
  const refusal = (resetAt: number, bucketLimit: number): RateCheck => {
    const error = new RateLimitError(Math.max(1, resetAt - nowSeconds), bucketLimit);
    return { headers: { ...headers, 'Retry-After': String(error.retryAfter) }, refusal: error };
  };
  if (window.count > limit) return refusal(window.resetAt, limit);
  if (route.rateBucket === 'payment_creations') {
    const bucketLimit = tenant.settings.payment_creations_per_hour;
    const bucket = await countInWindow(tenant.id, route.rateBucket, nowSeconds);
    if (bucket.count > bucketLimit) return refusal(bucket.resetAt, bucketLimit);
  }
  return { headers, refusal: null };
}
