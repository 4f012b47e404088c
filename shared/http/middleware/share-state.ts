import type { Context } from 'aws-lambda';
import type { Middleware, MiddyRequest, RequestState } from './request.js';
import { stateOf } from './request.js';

type SharingContext = Context & { gateway?: RequestState };

/**
 * Middy passes the same request object to every middleware, but the handler only its event and context: the
 * request's state travels to the handler on the context, which middy hands it unchanged.
 */
export function shareState(): Middleware {
  return {
    before: (request: MiddyRequest) => {
      (request.context as SharingContext).gateway = stateOf(request);
    },
  };
}

/** The state `shareState` handed the handler. */
export function sharedState(context: Context): RequestState {
  const state = (context as SharingContext).gateway;
  if (!state) throw new Error('request state missing');
  return state;
}
