import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { OAuthError } from '../../domain/errors.js';
import { sha256Hex } from '../../security/secrets.js';
import { authenticateClient, type ClientAuth } from './issue-token.js';
import type { AuthPorts } from './ports.js';

/**
 * Token revocation (RFC 7009): the client authenticates, and the token is revoked if it belongs to that
 * client. An unknown or already revoked token is not an error (section 2.2).
 */
export const RevokeRequest = lazySchema(() =>
  z.object({
    token: z.string().optional(),
    token_type_hint: z.string().optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  }),
);
export type RevokeRequest = z.infer<ReturnType<typeof RevokeRequest>>;

export async function revokeToken(request: RevokeRequest, auth: ClientAuth, deps: Pick<AuthPorts, 'tokens' | 'securityEvents'>): Promise<void> {
  const credential = await authenticateClient(auth, undefined, deps);
  if (!request.token) throw new OAuthError('invalid_request', 'token is required.');
  if (request.token_type_hint === 'refresh_token') return; // no refresh tokens are issued
  await deps.tokens.deleteAccessToken(sha256Hex(request.token), credential.clientId);
}
