import type { Scope } from './scopes.js';

/**
 * OAuth applications (client credentials), access tokens and API keys as the use cases see them. Secrets
 * are never part of them: client secrets are kept as scrypt hashes, tokens and API keys as SHA-256 hashes.
 */

export interface OAuthApp {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly clientId: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
}

export interface ClientCredential {
  readonly clientId: string;
  readonly tenantId: string;
  readonly appId: string;
  readonly secretHash: string;
  readonly scopes: readonly Scope[];
}

export interface AccessToken {
  readonly tokenHash: string;
  readonly tenantId: string;
  readonly clientId: string;
  readonly scopes: readonly Scope[];
  /** Epoch seconds. */
  readonly expiresAt: number;
}

export interface ApiKey {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly status: 'active' | 'revoked';
  readonly createdAt: string;
}
