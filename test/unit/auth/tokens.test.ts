import { OAuthError, NotFoundError, PermissionError } from '../../../shared/domain/errors.js';
import type { Tenant } from '../../../shared/domain/tenant.js';
import { hashSecret, sha256Hex } from '../../../shared/security/secrets.js';
import { appsOf, createApp, removeApp } from '../../../shared/usecases/auth/apps.js';
import { issueToken } from '../../../shared/usecases/auth/issue-token.js';
import type { AuthPorts } from '../../../shared/usecases/auth/ports.js';
import { revokeToken } from '../../../shared/usecases/auth/revoke-token.js';
import { VirtualClock } from '../../support/clock.js';
import { InMemoryCredentials, RecordedSecurityEvents } from '../../support/fakes/auth.js';
import { aTenant, InMemoryTenants } from '../../support/fakes/tenants.js';

const NOW = new Date('2030-05-01T10:00:00Z');
const tenant = aTenant({ id: 't-1' });

async function ports(tenants: Tenant[] = [tenant]) {
  const credentials = new InMemoryCredentials();
  const securityEvents = new RecordedSecurityEvents();
  await credentials.create(
    { id: 'app-1', tenantId: tenant.id, name: 'Default', clientId: 'gc_client', scopes: ['read', 'write'], createdAt: NOW.toISOString() },
    await hashSecret('s3cret'),
  );
  const deps: AuthPorts = {
    apps: credentials,
    tokens: credentials,
    tenants: new InMemoryTenants(tenants),
    securityEvents,
    settings: { accessTokenTtlSeconds: 600 },
    clock: new VirtualClock(NOW),
  };
  return { credentials, securityEvents, deps };
}

const auth = { clientId: 'gc_client', clientSecret: 's3cret' };

describe('client credentials grant', () => {
  it('issues an opaque token stored only as its hash, living the configured time', async () => {
    const { credentials, deps } = await ports();
    const answer = await issueToken({ grant_type: 'client_credentials', scope: 'read' }, auth, NOW, deps);
    expect(answer).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'read' });
    const stored = credentials.tokens.get(sha256Hex(answer.access_token));
    expect(stored).toEqual({
      tokenHash: sha256Hex(answer.access_token),
      tenantId: tenant.id,
      clientId: 'gc_client',
      scopes: ['read'],
      expiresAt: NOW.getTime() / 1000 + 600,
    });
  });

  it('refuses a wrong secret (a security event for the tenant), an unknown client, a suspended tenant and excess scopes', async () => {
    const { credentials, securityEvents, deps } = await ports([{ ...tenant }]);
    await expect(issueToken({ grant_type: 'client_credentials' }, { ...auth, clientSecret: 'wrong' }, NOW, deps)).rejects.toMatchObject({
      oauthCode: 'invalid_client',
    });
    expect(securityEvents.failedLogins).toEqual([{ tenantId: tenant.id, clientId: 'gc_client', at: NOW.toISOString() }]);
    await expect(issueToken({ grant_type: 'client_credentials' }, { clientId: 'gc_other', clientSecret: 's3cret' }, NOW, deps)).rejects.toBeInstanceOf(
      OAuthError,
    );
    await expect(issueToken({ grant_type: 'client_credentials', scope: 'read admin' }, auth, NOW, deps)).rejects.toMatchObject({ oauthCode: 'invalid_scope' });
    await expect(issueToken({ grant_type: 'password' }, auth, NOW, deps)).rejects.toMatchObject({ oauthCode: 'unsupported_grant_type' });
    expect(credentials.tokens.size).toBe(0);

    const suspended = await ports([{ ...tenant, status: 'suspended' }]);
    await expect(issueToken({ grant_type: 'client_credentials' }, auth, NOW, suspended.deps)).rejects.toMatchObject({ oauthCode: 'invalid_client' });
  });

  it('revokes a token of the authenticated client', async () => {
    const { credentials, deps } = await ports();
    const { access_token: token } = await issueToken({ grant_type: 'client_credentials' }, auth, NOW, deps);
    await revokeToken({ token }, auth, deps);
    expect(credentials.tokens.size).toBe(0);
    await expect(revokeToken({ token }, auth, deps)).resolves.toBeUndefined();
  });
});

describe('OAuth applications', () => {
  it('never carry more scopes than their creator, and deleting one revokes its tokens', async () => {
    const { credentials, deps } = await ports();
    await expect(createApp({ name: 'Admin app', scopes: ['admin'] }, { tenantId: tenant.id, scopes: ['read', 'write'] }, NOW, deps)).rejects.toBeInstanceOf(
      PermissionError,
    );
    const { app, clientSecret } = await createApp({ name: 'Reader' }, { tenantId: tenant.id, scopes: ['read', 'write', 'admin'] }, NOW, deps);
    expect(app.scopes).toEqual(['read', 'write']);
    const { access_token: token } = await issueToken({ grant_type: 'client_credentials' }, { clientId: app.clientId, clientSecret }, NOW, deps);
    expect((await appsOf(tenant.id, deps)).map((a) => a.name)).toEqual(['Default', 'Reader']);
    await removeApp(tenant.id, app.id, deps);
    expect(credentials.tokens.has(sha256Hex(token))).toBe(false);
    await expect(removeApp(tenant.id, app.id, deps)).rejects.toBeInstanceOf(NotFoundError);
  });
});
