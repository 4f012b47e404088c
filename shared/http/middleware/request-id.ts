import { randomUUID } from 'node:crypto';
import type { Middleware, MiddyRequest } from './request.js';
import { header, stateOf } from './request.js';

/**
 * Request id and the answer's final headers: a valid `X-Request-Id` of the caller is kept, else API Gateway's
 * request id (or a new one); the request's state starts here, at the pipeline's clock. On success the answer
 * carries the headers the other middlewares gathered (rate limits, `Allow`) and `X-Request-Id`; an error's answer
 * gets them from the error envelope (error-envelope.ts).
 */
export function requestId(clock: () => Date): Middleware {
  return {
    before: (request: MiddyRequest) => {
      const incoming = header(request.event, 'x-request-id');
      request.gateway = {
        requestId: incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : (request.event.requestContext?.requestId ?? randomUUID()),
        now: clock(),
        route: null,
        params: {},
        rawBody: undefined,
        body: undefined,
        principal: null,
        prefetched: {},
        count: null,
        headers: {},
      };
    },
    after: (request: MiddyRequest) => {
      const state = stateOf(request);
      const response = request.response ?? { statusCode: 500 };
      response.headers = { ...state.headers, ...response.headers, 'X-Request-Id': state.requestId };
    },
  };
}
