import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { DeferredCount } from '../rate-limit.js';
import type { AnyRoute, Prefetched, Principal } from '../route.js';

/**
 * What every middleware of the API pipeline (shared/http/pipeline-core.ts) shares: the event and answer types,
 * and the state a request gathers on its way (the request id, its route, body, principal and count), kept on the
 * middy request object.
 */

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

export type Middleware = middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context>;

/** What the middlewares learn about a request, shared through the middy request object. */
export interface RequestState {
  requestId: string;
  now: Date;
  route: AnyRoute | null;
  params: Record<string, string>;
  rawBody: string | undefined;
  body: unknown;
  principal: Principal | null;
  prefetched: Prefetched;
  count: DeferredCount | null;
  headers: Record<string, string>;
}

export type MiddyRequest = middy.Request<ApiEvent, ApiResult, Error, Context> & { gateway?: RequestState };

export function stateOf(request: MiddyRequest): RequestState {
  if (!request.gateway) throw new Error('request state missing');
  return request.gateway;
}

export const header = (event: ApiEvent, name: string): string | undefined => event.headers?.[name.toLowerCase()];
