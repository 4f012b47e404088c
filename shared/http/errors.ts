import { ERROR_TABLE, GatewayError, OAuthError } from '../domain/errors.js';
import { toJson } from './json.js';
import type { AnyRoute } from './route.js';
import { logger } from '../observability/logger.js';
import { mappedStack } from '../observability/stack-map.js';

/**
 * Errors to answers. GatewayErrors below 500 are shown as they are (after the route's overrides); anything
 * else is logged once, here, and becomes a generic 500 that reveals nothing internal.
 */

export interface ErrorAnswer {
  readonly statusCode: number;
  readonly body: string;
  readonly headers: Record<string, string>;
}

function normalise(error: unknown, requestId: string): GatewayError {
  if (error instanceof GatewayError) return error;
  logger.error('unexpected error', {
    requestId,
    error:
      error instanceof Error
        ? { name: error.name, message: error.message, stack: error.stack === undefined ? undefined : mappedStack(error.stack) }
        : String(error),
  });
  return new GatewayError('internal_error', `${ERROR_TABLE.internal_error.message} Reference: ${requestId}.`);
}

export function errorResponse(error: unknown, route: AnyRoute | null, requestId: string): ErrorAnswer {
  const failure = normalise(error, requestId);
  const override = route?.errorOverrides?.[failure.code];
  const code = override?.code ?? failure.code;
  const status = override?.status ?? failure.status;
  const headers: Record<string, string> = {};
  const format = route?.errorFormat ?? 'envelope';

  if (format === 'oauth') {
    const oauthCode =
      failure instanceof OAuthError ? failure.oauthCode : status === 401 ? 'invalid_client' : status >= 500 ? 'server_error' : 'invalid_request';
    headers['Cache-Control'] = 'no-store';
    if (oauthCode === 'invalid_client') headers['WWW-Authenticate'] = 'Basic realm="oauth"';
    const oauthStatus = oauthCode === 'invalid_client' ? 401 : status >= 500 ? 500 : status === 429 ? 429 : 400;
    return { statusCode: oauthStatus, headers, body: toJson({ error: oauthCode, error_description: failure.message }) };
  }
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  if (format === 'legacy') return { statusCode: status, headers, body: toJson({ error: code, message: failure.message, request_id: requestId }) };
  return { statusCode: status, headers, body: toJson({ error: { code, message: failure.message, details: failure.details } }) };
}
