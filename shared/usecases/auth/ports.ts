import type { Clock } from '../../domain/clock.js';
import type { AccessToken, ClientCredential, OAuthApp } from '../../domain/credentials.js';
import type { TenantRepository } from '../tenants/ports.js';

/** What the authentication use cases need (shared/store/credentials.ts holds the DynamoDB ones). */

export interface OAuthAppRepository {
  create(app: OAuthApp, secretHash: string): Promise<void>;
  list(tenantId: string): Promise<OAuthApp[]>;
  get(tenantId: string, appId: string): Promise<OAuthApp | null>;
  /** Deletes the app and its credential and revokes its tokens; false when it did not exist. */
  remove(app: OAuthApp): Promise<boolean>;
}

export interface TokenRepository {
  clientCredential(clientId: string): Promise<ClientCredential | null>;
  putAccessToken(token: AccessToken): Promise<void>;
  deleteAccessToken(tokenHash: string, clientId: string): Promise<void>;
}

/** Security events a tenant hears of (security.login_attempt). */
export interface SecurityEvents {
  failedLogin(tenantId: string, clientId: string, now: Date): Promise<void>;
}

export interface AuthSettings {
  readonly accessTokenTtlSeconds: number;
}

export interface AuthPorts {
  readonly apps: OAuthAppRepository;
  readonly tokens: TokenRepository;
  readonly tenants: Pick<TenantRepository, 'get'>;
  readonly securityEvents: SecurityEvents;
  readonly settings: AuthSettings;
  readonly clock: Clock;
}
