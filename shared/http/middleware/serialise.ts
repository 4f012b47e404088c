import { toJson } from '../json.js';
import type { RouteResult } from '../route.js';
import type { ApiResult } from './request.js';

/**
 * A route's result as the answer: JSON serialised losslessly, unless the route gave a body of its own type (text,
 * HTML) or bytes (a compressed asset), which API Gateway is handed in base64.
 */
export function serialise(result: RouteResult): ApiResult {
  const headers: Record<string, string> = { ...result.headers };
  if (result.body === undefined) return { statusCode: result.status, headers, body: '' };
  if (result.body instanceof Uint8Array && headers['Content-Type']) {
    return { statusCode: result.status, headers, body: Buffer.from(result.body).toString('base64'), isBase64Encoded: true };
  }
  if (typeof result.body === 'string' && headers['Content-Type']) return { statusCode: result.status, headers, body: result.body };
  return { statusCode: result.status, headers: { 'Content-Type': 'application/json', ...headers }, body: toJson(result.body) };
}
