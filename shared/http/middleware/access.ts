import type { BeginInput, Begun } from '../idempotency.js';
import type { DeferredCount } from '../rate-limit.js';
import type { AnyRoute, Prefetched, Principal } from '../route.js';
import type { ApiEvent, Middleware, MiddyRequest } from './request.js';
import { stateOf } from './request.js';

/** A request to a route that is not public, admitted. */
export interface Admission {
  readonly principal: Principal;
  /** What was read with the credential for the route (`Route.prefetch`). */
  readonly prefetched: Prefetched;
  /** The request's count when it is left to the route's own write (`Route.countsInOwnWrite`); null: counted already. */
  readonly count: DeferredCount | null;
}

/**
 * What the pipeline asks of the tenant's side for a route that is not public (shared/http/pipeline.ts builds it:
 * credentials, account checks, rate limits and scopes, in that order, and idempotency records).
 */
export interface TenantAccess {
  /**
   * A request to a route that is not public, after its account checks, rate limits and scopes; the rate-limit
   * headers go into `headers` (the answer carries them, a refusal too).
   */
  authorize(route: AnyRoute, event: ApiEvent, now: Date, headers: Record<string, string>): Promise<Admission>;
  /** `Idempotency-Key` of an idempotent route (shared/http/idempotency.ts). */
  beginIdempotency(input: BeginInput): Promise<Begun>;
}

/**
 * Access to a route that is not public: credentials, account checks (suspension, IP allow-list), rate limits, then
 * scopes, asked of the tenant's side (`access`; null in an API whose routes are all public). A public route passes.
 */
export function authorize(access: TenantAccess | null): Middleware {
  return {
    before: async (request: MiddyRequest) => {
      const state = stateOf(request);
      const route = state.route;
      if (!route || route.auth === 'public') return;
      if (!access) throw new Error(`${route.method} ${route.path} is not public and this API has no tenant access`);
      const admitted = await access.authorize(route, request.event, state.now, state.headers);
      state.principal = admitted.principal;
      state.prefetched = admitted.prefetched;
      state.count = admitted.count;
    },
  };
}
