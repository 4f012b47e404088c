import type { AccessToken, ClientCredential, OAuthApp } from '../../../shared/domain/credentials.js';
import type { OAuthAppRepository, SecurityEvents, TokenRepository } from '../../../shared/usecases/auth/ports.js';

/** OAuth applications, their client credentials and access tokens in memory. */
export class InMemoryCredentials implements OAuthAppRepository, TokenRepository {
  readonly apps = new Map<string, { app: OAuthApp; secretHash: string }>();
  readonly tokens = new Map<string, AccessToken>();

  /** Adds an app as the tenant use cases create it (a new tenant's first application). */
  async create(app: OAuthApp, secretHash: string): Promise<void> {
    this.apps.set(app.id, { app, secretHash });
  }

  async list(tenantId: string): Promise<OAuthApp[]> {
    return [...this.apps.values()].map((a) => a.app).filter((a) => a.tenantId === tenantId);
  }

  async get(tenantId: string, appId: string): Promise<OAuthApp | null> {
    const found = this.apps.get(appId)?.app;
    return found && found.tenantId === tenantId ? found : null;
  }

  async remove(app: OAuthApp): Promise<boolean> {
    if (!this.apps.delete(app.id)) return false;
    for (const [hash, token] of this.tokens) if (token.clientId === app.clientId) this.tokens.delete(hash);
    return true;
  }

  async clientCredential(clientId: string): Promise<ClientCredential | null> {
    const found = [...this.apps.values()].find((a) => a.app.clientId === clientId);
    return found ? { clientId, tenantId: found.app.tenantId, appId: found.app.id, secretHash: found.secretHash, scopes: found.app.scopes } : null;
  }

  async putAccessToken(token: AccessToken): Promise<void> {
    this.tokens.set(token.tokenHash, token);
  }

  async deleteAccessToken(tokenHash: string, clientId: string): Promise<void> {
    if (this.tokens.get(tokenHash)?.clientId === clientId) this.tokens.delete(tokenHash);
  }
}

/** Security events, recorded. */
export class RecordedSecurityEvents implements SecurityEvents {
  readonly failedLogins: { tenantId: string; clientId: string; at: string }[] = [];

  async failedLogin(tenantId: string, clientId: string, now: Date): Promise<void> {
    this.failedLogins.push({ tenantId, clientId, at: now.toISOString() });
  }
}
