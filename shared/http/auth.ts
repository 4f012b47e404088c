import { AuthenticationError, GatewayError, PermissionError } from '../domain/errors.js';
import { cidrContains } from '../domain/ip.js';
import { missingScopes, type Scope } from '../domain/scopes.js';
import { config, platformLimits } from '../config/config.js';
import { canServe, withPlatformLimits } from '../domain/tenant.js';
import type { Tenant } from '../domain/tenant.js';
import { sha256Hex } from '../security/secrets.js';
import { findApiKey, getAccessToken } from '../store/credentials.js';
import { getTenant } from '../store/tenants.js';
import type { AuthMode, Principal } from './route.js';

/**
 * Credentials to principal. Tokens and keys are looked up by their SHA-256 hash, so no stored secret is
 * ever compared byte by byte. The tenant comes only from the credential.
 */

export interface Credentials {
  readonly authorization?: string;
  readonly apiKey?: string;
}

/** The credential's tenant, with the limits that apply to it (its own, else the platform's). */
async function tenantOf(tenantId: string): Promise<Tenant | null> {
  const tenant = await getTenant(tenantId);
  return tenant && withPlatformLimits(tenant, platformLimits(config()));
}

async function principalFromToken(token: string, nowSeconds: number): Promise<Principal> {
  const stored = await getAccessToken(sha256Hex(token));
  // TTL deletes late: an expired token still in the table is refused here.
  if (!stored || stored.expiresAt <= nowSeconds) throw new AuthenticationError('The access token is invalid or has expired.');
  const tenant = await tenantOf(stored.tenantId);
  if (!tenant) throw new AuthenticationError('The access token is invalid or has expired.');
  return { tenant, scopes: stored.scopes, credential: { kind: 'token', clientId: stored.clientId } };
}

async function principalFromApiKey(apiKey: string): Promise<Principal> {
  const stored = await findApiKey(sha256Hex(apiKey));
  if (!stored) throw new AuthenticationError('The API key is invalid or has been revoked.');
  const tenant = await tenantOf(stored.tenantId);
  if (!tenant) throw new AuthenticationError('The API key is invalid or has been revoked.');
  return { tenant, scopes: stored.scopes, credential: { kind: 'api_key', keyId: stored.keyId } };
}

export async function authenticate(mode: AuthMode, credentials: Credentials, nowSeconds: number): Promise<Principal> {
  const bearer = credentials.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) return principalFromToken(bearer, nowSeconds);
  if (credentials.apiKey) {
    if (mode === 'bearer-or-api-key') return principalFromApiKey(credentials.apiKey);
    throw new AuthenticationError('This endpoint needs a bearer token; X-API-Key is accepted only on the endpoints that say so.');
  }
  if (credentials.authorization) throw new AuthenticationError('The Authorization header must be "Bearer <access token>".');
  throw new AuthenticationError(
    mode === 'bearer-or-api-key'
      ? 'Authentication credentials were not provided: send a bearer token or X-API-Key.'
      : 'Authentication credentials were not provided: send Authorization: Bearer <access token>.',
  );
}

/** Account-level refusals: a suspended tenant, or a source address outside the tenant's allow-list. */
export function admit(principal: Principal, sourceIp: string): void {
  const { tenant } = principal;
  if (!canServe(tenant)) throw new GatewayError('account_suspended', 'This account is suspended; contact support.', { status: tenant.status });
  const { is_ip_whitelist_enabled: enabled, ip_whitelist: allowed } = tenant.settings;
  if (enabled && !allowed.some((entry) => cidrContains(entry, sourceIp))) {
    throw new GatewayError('ip_not_allowed', `Requests from ${sourceIp} are not allowed for this account.`, { ip: sourceIp });
  }
}

export function requireScopes(required: readonly Scope[], principal: Principal): void {
  if (missingScopes(required, principal.scopes).length > 0) throw new PermissionError(required, principal.scopes);
}
