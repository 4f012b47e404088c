import { toJson } from '../json.js';
import type { RouteResult } from '../route.js';
import type { ApiResult } from './request.js';

/** A route's result as the answer: JSON serialised losslessly, unless the route gave a body of its own type (text, HTML). */
export function serialise(result: RouteResult): ApiResult {
  const headers: Record<string, string> = { ...result.headers };
  if (result.body === undefined) return { statusCode: result.status, headers, body: '' };
  if (typeof result.body === 'string' && headers['Content-Type']) return { statusCode: result.status, headers, body: result.body };
  return { statusCode: result.status, headers: { 'Content-Type': 'application/json', ...headers }, body: toJson(result.body) };
}
