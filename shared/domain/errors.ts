/**
 * Domain errors and the one table that gives each error code its HTTP status and default message.
 * A route may override the code or status where its section of the interface says so
 * (shared/http/route.ts, `errorOverrides`). Anything that is not a GatewayError is a generic 500.
 */

export const ERROR_TABLE = {
  invalid_request: { status: 400, message: 'The request is invalid.' },
  invalid_currency: { status: 422, message: 'The currency is not supported.' },
  invalid_address: { status: 400, message: 'The address is not valid for this currency.' },
  insufficient_balance: { status: 400, message: 'The balance is lower than the amount plus fees.' },
  below_minimum: { status: 422, message: 'The amount is below the minimum.' },
  insufficient_funds: { status: 400, message: 'The source account lacks funds.' },
  same_account: { status: 400, message: 'The source and destination accounts are the same.' },
  minimum_amount_not_met: { status: 400, message: 'The amount is below the minimum.' },
  unsupported_blockchain: { status: 400, message: 'The blockchain is not supported.' },
  unsupported_token: { status: 400, message: 'The token is not supported.' },
  invalid_url: { status: 400, message: 'The URL is not allowed.' },
  invalid_event_types: { status: 400, message: 'Unknown event types.' },
  url_already_existsm: { status: 400, message: 'A webhook with this URL already exists.' },
  invalid_webhook_id: { status: 400, message: 'The webhook id is not valid.' },
  authentication_failed: { status: 401, message: 'Authentication credentials are missing or invalid.' },
  permission_denied: { status: 403, message: 'The credentials lack a required scope.' },
  account_suspended: { status: 403, message: 'This account is suspended; contact support.' },
  ip_not_allowed: { status: 403, message: 'Requests from this address are not allowed for this account.' },
  not_found: { status: 404, message: 'Not found.' },
  account_not_found: { status: 404, message: 'The account was not found.' },
  webhook_not_found: { status: 404, message: 'The webhook was not found.' },
  method_not_allowed: { status: 405, message: 'The method is not allowed on this path.' },
  idempotency_conflict: { status: 409, message: 'A request with this Idempotency-Key is still in progress.' },
  invalid_state: { status: 409, message: 'The resource is not in a state that allows this.' },
  deprecated_endpoint: { status: 410, message: 'This endpoint is deprecated; use the v1.0 endpoints without the /v0 prefix.' },
  payload_too_large: { status: 413, message: 'The request body is larger than 1 MB.' },
  unsupported_media_type: { status: 415, message: 'The request body must be JSON (Content-Type: application/json).' },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was used with a different request.' },
  rate_limit_exceeded: { status: 429, message: 'Rate limit exceeded.' },
  internal_error: { status: 500, message: 'An internal error occurred.' },
  custody_provider_error: { status: 500, message: 'The custody provider failed.' },
  service_unavailable: { status: 500, message: 'The service is unavailable.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** Aliases that routes may answer with instead of a table code (the interface names them per route). */
export type ErrorCodeAlias = 'unauthorized' | 'forbidden' | 'insufficient_permissions';

export type ErrorDetails = Record<string, unknown>;

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message ?? ERROR_TABLE[code].message, options);
    this.name = 'GatewayError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

/** Validation failure: `details` maps each field (dotted path) to a list of messages. */
export class ValidationError extends GatewayError {
  constructor(fields: Record<string, string[]>, message = 'The request is invalid.') {
    super('invalid_request', message, fields);
    this.name = 'ValidationError';
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

export class AuthenticationError extends GatewayError {
  constructor(message?: string) {
    super('authentication_failed', message);
    this.name = 'AuthenticationError';
  }
}

export class PermissionError extends GatewayError {
  constructor(requiredScopes: readonly string[], tokenScopes: readonly string[]) {
    super('permission_denied', `This request needs the scopes: ${requiredScopes.join(' ')}.`, {
      required_scopes: [...requiredScopes],
      token_scopes: [...tokenScopes],
    });
    this.name = 'PermissionError';
  }
}

export class NotFoundError extends GatewayError {
  constructor(message?: string, details: ErrorDetails = {}) {
    super('not_found', message, details);
    this.name = 'NotFoundError';
  }
}

export class RateLimitError extends GatewayError {
  /** Seconds until the window resets. */
  readonly retryAfter: number;

  constructor(retryAfter: number, limit: number) {
    super('rate_limit_exceeded', `Rate limit of ${limit} requests per hour exceeded; retry in ${retryAfter} seconds.`, {
      limit,
      retry_after: retryAfter,
    });
    this.name = 'RateLimitError';
    this.retryAfter = retryAfter;
  }
}

export class InsufficientBalanceError extends GatewayError {
  constructor(details: ErrorDetails = {}, message?: string) {
    super('insufficient_balance', message, details);
    this.name = 'InsufficientBalanceError';
  }
}

export class ConflictError extends GatewayError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('invalid_state', message, details);
    this.name = 'ConflictError';
  }
}

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope';

/** An OAuth 2.0 error (RFC 6749 section 5.2) answered by the token and revocation endpoints. */
export class OAuthError extends GatewayError {
  readonly oauthCode: string;

  constructor(oauthCode: OAuthErrorCode, description: string) {
    super(oauthCode === 'invalid_client' ? 'authentication_failed' : 'invalid_request', description);
    this.name = 'OAuthError';
    this.oauthCode = oauthCode;
  }
}

/** A creation that would take the tenant's total of the day past its daily limit (USD, DESIGN section 10). */
export class DailyLimitError extends ValidationError {
  constructor(what: 'payment' | 'withdrawal', limitUsd: string) {
    super({ amount: [`The ${what} would exceed the daily ${what} limit of ${limitUsd} USD.`] }, `The daily ${what} limit is reached.`);
    this.name = 'DailyLimitError';
  }
}
