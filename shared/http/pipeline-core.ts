import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { TenantAccess } from './middleware/access.js';
import { authorize } from './middleware/access.js';
import { parseBody } from './middleware/body.js';
import { countedOnce } from './middleware/count.js';
import { errorEnvelope } from './middleware/error-envelope.js';
import { handleIdempotently } from './middleware/idempotency.js';
import type { ApiEvent, ApiResult } from './middleware/request.js';
import { header } from './middleware/request.js';
import { requestId } from './middleware/request-id.js';
import { routeMatch } from './middleware/route-match.js';
import { sharedState, shareState } from './middleware/share-state.js';
import { validateRequest } from './middleware/validation.js';
import type { AnyRoute, Method, RouteRequest } from './route.js';

/**
 * The middy stack of the API Lambdas, composed from one middleware per file in shared/http/middleware/: the error
 * envelope (error-envelope.ts), the request id (request-id.ts), routing on method + rawPath (route-match.ts), body
 * parsing (body.ts: lossless JSON, size and content-type checks), access where a route is not public (access.ts:
 * authentication, account checks, rate limits, scopes), and the state handed to the handler (share-state.ts). The
 * handler then runs the route inside the request's count (count.ts): zod validation (validation.ts), idempotency
 * (idempotency.ts) and the route's answer (serialise.ts). Handlers only call a use case and answer.
 *
 * What authenticated routes need (credentials, tenants, usage counters and idempotency records in the table)
 * is handed in as a TenantAccess by shared/http/pipeline.ts (`createApi`), so a Lambda whose routes are all
 * public (shared/http/public-pipeline.ts) neither bundles nor loads it.
 */

export { MAX_BODY_BYTES } from './middleware/body.js';
export type { Admission, TenantAccess } from './middleware/access.js';
export type { ApiEvent, ApiResult } from './middleware/request.js';
export { header } from './middleware/request.js';

export interface ApiOptions {
  /** Time source; tests pass a fixed clock. */
  readonly clock?: () => Date;
}

/** The API of a route table; `access` serves its routes that are not public (null: it has none). */
export function createPipeline<D>(routes: readonly AnyRoute<D>[], deps: D, options: ApiOptions, access: TenantAccess | null) {
  const clock = options.clock ?? (() => new Date());

  const dispatch = async (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const state = sharedState(context);
    const route = state.route as AnyRoute<D> | null;
    if (!route) throw new Error('route missing');
    // Whatever the route did, validation included, the request is counted once: in its write, or here after it.
    return countedOnce(state, async () => {
      const request: RouteRequest<unknown, unknown, unknown> = {
        method: event.requestContext.http.method.toUpperCase() as Method,
        path: event.rawPath,
        ...validateRequest(route, event, state),
        headers: event.headers ?? {},
        sourceIp: event.requestContext.http.sourceIp,
        requestId: state.requestId,
        now: state.now,
        principal: state.principal,
        idempotency: null,
        usage: state.count?.guard ?? null,
        prefetched: state.prefetched,
      };
      return handleIdempotently(route, request, deps, header(event, 'idempotency-key'), state, access);
    });
  };

  // After and onError run in the reverse order: the request id's headers, then the error envelope, come last.
  return middy<ApiEvent, ApiResult, Error, Context>()
    .use(errorEnvelope())
    .use(requestId(clock))
    .use(routeMatch(routes))
    .use(parseBody())
    .use(authorize(access))
    .use(shareState())
    .handler(dispatch);
}
