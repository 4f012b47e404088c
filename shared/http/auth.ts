import { AuthenticationError, GatewayError, PermissionError } from '../domain/errors.js';
import { cidrContains } from '../domain/ip.js';
import { missingScopes, type Scope } from '../domain/scopes.js';
import { config, platformLimits } from '../config/config.js';
import { canServe, withPlatformLimits } from '../domain/tenant.js';
import type { Tenant } from '../domain/tenant.js';
import { sha256Hex, tenantNamedBy } from '../security/secrets.js';
import { readAccessToken, readApiKey, readTenant, type AlsoRead, type CredentialRead } from '../store/auth-reads.js';
import type { Counted } from '../store/usage.js';
import type { AuthMode, Prefetched, Principal } from './route.js';

/**
 * Credentials to principal. Tokens and keys are looked up by their SHA-256 hash, so no stored secret is
 * ever compared byte by byte. The tenant comes only from the credential.
 *
 * One round trip: the credential's item and its tenant's item in one strongly consistent BatchGetItem, the tenant
 * being the one the credential names (shared/security/secrets.ts `tenantSecret`), with what the route needs before
 * its own work (`AlsoRead`). Nothing about either item is kept between requests, so a revoked credential or a
 * suspended tenant is refused on the next request.
 */

export interface Authenticated {
  readonly principal: Principal;
  /** The hour's counts of the principal's tenant as read, when asked for and the tenant read was the credential's. */
  readonly usage: Counted | null;
  readonly prefetched: Prefetched;
}

export interface Credentials {
  readonly authorization?: string;
  readonly apiKey?: string;
}

/**
 * Credentials made before they named their tenant: the tenant each one's item gave, per Lambda instance, so only a
 * first request pays a second read. A credential's tenant never changes; both items are still read every time.
 */
const tenantOfUnnamed = new Map<string, string>();
const UNNAMED_MAX = 10_000;

function guessTenant(secret: string, hash: string): string | null {
  return tenantNamedBy(secret) ?? tenantOfUnnamed.get(hash) ?? null;
}

/** The credential's tenant, with the limits that apply to it (its own, else the platform's); read again when the guess was not it. */
async function tenantOf<C>(read: CredentialRead<C>, guess: string | null, tenantId: string, hash: string): Promise<Tenant | null> {
  if (guess === null) {
    if (tenantOfUnnamed.size >= UNNAMED_MAX) tenantOfUnnamed.delete(tenantOfUnnamed.keys().next().value as string);
    tenantOfUnnamed.set(hash, tenantId);
  }
  const tenant = guess === tenantId ? read.tenant : await readTenant(tenantId);
  return tenant && withPlatformLimits(tenant, platformLimits(config()));
}

/** What was read beside the credential, for a principal of `tenantId`: its usage only when the tenant read was it. */
const besides = <C>(read: CredentialRead<C>, guess: string | null, tenantId: string) => ({
  usage: guess === tenantId ? read.usage : null,
  prefetched: read.rates === undefined ? {} : { rates: read.rates },
});

async function principalFromToken(token: string, nowSeconds: number, also: AlsoRead): Promise<Authenticated> {
  const hash = sha256Hex(token);
  const guess = guessTenant(token, hash);
  const read = await readAccessToken(hash, guess, also);
  const stored = read.credential;
  // TTL deletes late: an expired token still in the table is refused here.
  if (!stored || stored.expiresAt <= nowSeconds) throw new AuthenticationError('The access token is invalid or has expired.');
  const tenant = await tenantOf(read, guess, stored.tenantId, hash);
  if (!tenant) throw new AuthenticationError('The access token is invalid or has expired.');
  return { principal: { tenant, scopes: stored.scopes, credential: { kind: 'token', clientId: stored.clientId } }, ...besides(read, guess, stored.tenantId) };
}

async function principalFromApiKey(apiKey: string, also: AlsoRead): Promise<Authenticated> {
  const hash = sha256Hex(apiKey);
  const guess = guessTenant(apiKey, hash);
  const read = await readApiKey(hash, guess, also);
  const stored = read.credential;
  if (!stored) throw new AuthenticationError('The API key is invalid or has been revoked.');
  const tenant = await tenantOf(read, guess, stored.tenantId, hash);
  if (!tenant) throw new AuthenticationError('The API key is invalid or has been revoked.');
  return { principal: { tenant, scopes: stored.scopes, credential: { kind: 'api_key', keyId: stored.keyId } }, ...besides(read, guess, stored.tenantId) };
}

export async function authenticate(mode: AuthMode, credentials: Credentials, nowSeconds: number, also: AlsoRead = {}): Promise<Authenticated> {
  const bearer = credentials.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) return principalFromToken(bearer, nowSeconds, also);
  if (credentials.apiKey) {
    if (mode === 'bearer-or-api-key') return principalFromApiKey(credentials.apiKey, also);
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

export const hasScopes = (required: readonly Scope[], principal: Principal): boolean => missingScopes(required, principal.scopes).length === 0;

export function requireScopes(required: readonly Scope[], principal: Principal): void {
  if (!hasScopes(required, principal)) throw new PermissionError(required, principal.scopes);
}
