import { admit, authenticate, hasScopes, requireScopes } from './auth.js';
import { beginIdempotency } from './idempotency.js';
import { createPipeline, header, type ApiOptions, type TenantAccess } from './pipeline-core.js';
import { checkRateLimits, deferCount } from './rate-limit.js';
import type { AnyRoute } from './route.js';

/**
 * The one middy stack every API Lambda uses (shared/http/pipeline-core.ts): request id, routing on method +
 * rawPath, body parsing (lossless JSON, size and content-type checks), authentication, account checks, rate
 * limits, scopes, zod validation, idempotency, and the error envelope. Handlers only call a use case and answer.
 * A group whose routes are all public uses `createPublicApi` (shared/http/public-pipeline.ts) instead: the same
 * stack without the tenant's side, which it then neither bundles nor loads.
 */

export { MAX_BODY_BYTES, type ApiEvent, type ApiOptions, type ApiResult } from './pipeline-core.js';

/**
 * Credentials, account checks (suspension, IP allow-list), rate limits, then scopes; and idempotency records. One
 * BatchGetItem reads the credential, its tenant and what the route asks for (its usage of the hour when it counts
 * its request in its own write, the rates snapshot); then the request is counted by one UpdateItem, unless the
 * route counts it in its write: then only when the route's write did not commit the count (`deferCount`).
 */
const tenantAccess: TenantAccess = {
  authorize: async (route, event, now, headers) => {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const also = {
      ...(route.countsInOwnWrite ? { usage: { at: now, ...(route.rateBucket ? { bucket: route.rateBucket } : {}) } } : {}),
      ...(route.prefetch?.includes('rates') ? { rates: true } : {}),
    };
    const credentials = { authorization: header(event, 'authorization'), apiKey: header(event, 'x-api-key') };
    const { principal, usage, prefetched } = await authenticate(route.auth, credentials, nowSeconds, also);
    admit(principal, event.requestContext.http.sourceIp);
    // Left to the route only when the request reaches it: one refused here (limit, scopes) is counted as always.
    const count = usage && hasScopes(route.scopes ?? [], principal) ? deferCount(route, principal.tenant, now, usage) : null;
    if (count) {
      Object.assign(headers, count.headers);
      return { principal, prefetched, count };
    }
    const rate = await checkRateLimits(route, principal.tenant, now);
    Object.assign(headers, rate.headers);
    if (rate.refusal) throw rate.refusal;
    requireScopes(route.scopes ?? [], principal);
    return { principal, prefetched, count: null };
  },
  beginIdempotency,
};

export function createApi<D>(routes: readonly AnyRoute<D>[], deps: D, options: ApiOptions = {}) {
  return createPipeline(routes, deps, options, tenantAccess);
}
