import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { formatScopes, parseScopes, type Scope } from '../../domain/scopes.js';
import { OAuthError } from '../../domain/errors.js';
import { DUMMY_SECRET_HASH, sha256Hex, tenantSecret, verifySecret } from '../../security/secrets.js';
import type { ClientCredential } from '../../domain/credentials.js';
import { canServe } from '../../domain/tenant.js';
import type { AuthPorts } from './ports.js';

/**
 * OAuth 2.0 client credentials grant (RFC 6749 section 4.4). Tokens are opaque random strings stored only
 * as SHA-256 hashes with a TTL. Errors are RFC 6749 errors so that standard clients understand them.
 */
export const TokenRequest = lazySchema(() =>
  z.object({
    grant_type: z.string().optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    scope: z.string().optional(),
  }),
);
export type TokenRequest = z.infer<ReturnType<typeof TokenRequest>>;

export interface ClientAuth {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface TokenAnswer {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope: string;
}

/** Client authentication from HTTP Basic (RFC 6749 section 2.3.1) or the body; both at once is an error. */
export function clientAuthFrom(authorization: string | undefined, body: { client_id?: string; client_secret?: string }): ClientAuth {
  const basic = authorization?.match(/^Basic\s+(\S+)$/i)?.[1];
  if (basic) {
    if (body.client_secret) throw new OAuthError('invalid_request', 'Use one client authentication method, not both.');
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'Malformed Basic credentials.');
    const form = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        throw new OAuthError('invalid_client', 'Malformed Basic credentials.');
      }
    };
    return { clientId: form(decoded.slice(0, colon)), clientSecret: form(decoded.slice(colon + 1)) };
  }
  if (!body.client_id || !body.client_secret) throw new OAuthError('invalid_client', 'Client authentication failed: client_id and client_secret are required.');
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

/** Longest client id looked up: issued ids are far shorter, and a longer one could not be a table key. */
const MAX_CLIENT_ID_LENGTH = 256;

/** Verifies a client's secret in constant time; unknown clients (and ids no client can have) cost the same as wrong secrets. */
export async function authenticateClient(
  auth: ClientAuth,
  now: Date | undefined,
  deps: Pick<AuthPorts, 'tokens' | 'securityEvents'>,
): Promise<ClientCredential> {
  const possible = auth.clientId.length > 0 && auth.clientId.length <= MAX_CLIENT_ID_LENGTH;
  const credential = possible ? await deps.tokens.clientCredential(auth.clientId) : null;
  const valid = await verifySecret(auth.clientSecret, credential?.secretHash ?? DUMMY_SECRET_HASH);
  // A known client with a wrong secret is a security event (security.login_attempt) for its tenant.
  if (credential && !valid && now) await deps.securityEvents.failedLogin(credential.tenantId, credential.clientId, now);
  if (!credential || !valid) throw new OAuthError('invalid_client', 'Client authentication failed.');
  return credential;
}

export async function issueToken(
  request: TokenRequest,
  auth: ClientAuth,
  now: Date,
  deps: Pick<AuthPorts, 'tokens' | 'tenants' | 'securityEvents' | 'settings'>,
): Promise<TokenAnswer> {
  if (!request.grant_type) throw new OAuthError('invalid_request', 'grant_type is required.');
  if (request.grant_type !== 'client_credentials') throw new OAuthError('unsupported_grant_type', 'Only the client_credentials grant is supported.');
  const credential = await authenticateClient(auth, now, deps);
  const tenant = await deps.tenants.get(credential.tenantId);
  if (!tenant) throw new OAuthError('invalid_client', 'Client authentication failed.');
  if (!canServe(tenant)) throw new OAuthError('invalid_client', 'This account is suspended; contact support.');

  // The token holds what was asked for, within what the app and the tenant allow.
  const allowed = credential.scopes.filter((s) => tenant.allowed_scopes.includes(s));
  let scopes: Scope[] = [...allowed];
  if (request.scope !== undefined && request.scope.trim() !== '') {
    const { scopes: asked, unknown } = parseScopes(request.scope);
    const excess = asked.filter((s) => !allowed.includes(s));
    if (unknown.length > 0 || excess.length > 0) {
      throw new OAuthError('invalid_scope', `Scope not allowed for this client: ${[...unknown, ...excess].join(' ')}.`);
    }
    scopes = asked;
  }
  const lifetime = deps.settings.accessTokenTtlSeconds;
  const token = tenantSecret('gat_', tenant.id);
  await deps.tokens.putAccessToken({
    tokenHash: sha256Hex(token),
    tenantId: tenant.id,
    clientId: credential.clientId,
    scopes,
    expiresAt: Math.floor(now.getTime() / 1000) + lifetime,
  });
  return { access_token: token, token_type: 'Bearer', expires_in: lifetime, scope: formatScopes(scopes) };
}
