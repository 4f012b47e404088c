import type { ApiResult, RequestState } from './request.js';

/**
 * The request's count when the route was left to count it in its own write (`Route.countsInOwnWrite`): whatever
 * the route did (validation refused, it answered, it threw), the request is counted once, in its write or after it.
 */
export async function countedOnce(state: RequestState, answer: () => Promise<ApiResult>): Promise<ApiResult> {
  const count = state.count;
  if (!count) return answer();
  let result: ApiResult;
  try {
    result = await answer();
  } catch (error) {
    await count.settle(false, state.headers);
    throw error;
  }
  await count.settle(true, state.headers);
  return result;
}
