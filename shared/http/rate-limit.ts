import { RateLimitError } from '../domain/errors.js';
import type { Tenant } from '../domain/tenant.js';
import { countRequest } from '../store/usage.js';
import type { AnyRoute } from './route.js';

/**
 * Per-tenant hourly limits (1,000 requests and 100 payment creations by default; tenant settings
 * override). Every answer to an authenticated request carries X-RateLimit-*; a refusal adds Retry-After.
 */
export interface RateCheck {
  readonly headers: Record<string, string>;
  readonly refusal: RateLimitError | null;
}

export async function checkRateLimits(route: AnyRoute, tenant: Tenant, now: Date): Promise<RateCheck> {
  const limit = tenant.settings.requests_per_hour;
  const counted = await countRequest(tenant.id, now, route.rateBucket);
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - counted.hourRequests)),
    'X-RateLimit-Reset': String(counted.resetAt),
  };
  const refuse = (bucketLimit: number): RateCheck => {
    const error = new RateLimitError(Math.max(1, counted.resetAt - Math.floor(now.getTime() / 1000)), bucketLimit);
    return { headers: { ...headers, 'Retry-After': String(error.retryAfter) }, refusal: error };
  };
  if (counted.hourRequests > limit) return refuse(limit);
  if (route.rateBucket === 'payment_creations' && (counted.hourBucket ?? 0) > tenant.settings.payment_creations_per_hour) {
    return refuse(tenant.settings.payment_creations_per_hour);
  }
  return { headers, refusal: null };
}
