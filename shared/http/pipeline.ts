import { admit, authenticate, requireScopes } from './auth.js';
import { beginIdempotency } from './idempotency.js';
import { createPipeline, header, type ApiOptions, type TenantAccess } from './pipeline-core.js';
import { checkRateLimits } from './rate-limit.js';
import type { AnyRoute } from './route.js';

/**
 * The one middy stack every API Lambda uses (shared/http/pipeline-core.ts): request id, routing on method +
 * rawPath, body parsing (lossless JSON, size and content-type checks), authentication, account checks, rate
 * limits, scopes, zod validation, idempotency, and the error envelope. Handlers only call a use case and answer.
 * A group whose routes are all public uses `createPublicApi` (shared/http/public-pipeline.ts) instead: the same
 * stack without the tenant's side, which it then neither bundles nor loads.
 */

export { MAX_BODY_BYTES, type ApiEvent, type ApiOptions, type ApiResult } from './pipeline-core.js';

/** Credentials, account checks (suspension, IP allow-list), rate limits, then scopes; and idempotency records. */
const tenantAccess: TenantAccess = {
  authorize: async (route, event, now, headers) => {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const principal = await authenticate(route.auth, { authorization: header(event, 'authorization'), apiKey: header(event, 'x-api-key') }, nowSeconds);
    admit(principal, event.requestContext.http.sourceIp);
    const rate = await checkRateLimits(route, principal.tenant, now);
    Object.assign(headers, rate.headers);
    if (rate.refusal) throw rate.refusal;
    requireScopes(route.scopes ?? [], principal);
    return principal;
  },
  beginIdempotency,
};

export function createApi<D>(routes: readonly AnyRoute<D>[], deps: D, options: ApiOptions = {}) {
  return createPipeline(routes, deps, options, tenantAccess);
}
