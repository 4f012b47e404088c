import { randomUUID } from 'node:crypto';
import { errorResponse } from '../errors.js';
import type { Middleware, MiddyRequest } from './request.js';

/**
 * The error envelope: whatever a middleware or the route threw becomes `{error:{code,message,details}}` with its
 * status (shared/http/errors.ts: anything unexpected is a generic 500), with the headers gathered so far and
 * `X-Request-Id`.
 */
export function errorEnvelope(): Middleware {
  return {
    onError: (request: MiddyRequest) => {
      const state = request.gateway ?? null;
      const requestId = state?.requestId ?? randomUUID();
      const route = state?.route ?? null;
      const { statusCode, body, headers } = errorResponse(request.error, route, requestId);
      request.response = {
        statusCode,
        body,
        headers: { ...(state?.headers ?? {}), ...headers, 'Content-Type': 'application/json', 'X-Request-Id': requestId },
      };
    },
  };
}
