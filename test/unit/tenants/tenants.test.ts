import { NotFoundError, PermissionError } from '../../../shared/domain/errors.js';
import { verifySecret, sha256Hex } from '../../../shared/security/secrets.js';
import { apiKeysOf, createApiKey, revokeKey } from '../../../shared/usecases/tenants/api-keys.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import { allTenants, changeTenantStatus, configureTenant, requireTenant } from '../../../shared/usecases/tenants/manage-tenants.js';
import type { TenantsPorts } from '../../../shared/usecases/tenants/ports.js';
import { VirtualClock } from '../../support/clock.js';
import { InMemoryApiKeys, InMemoryTenants } from '../../support/fakes/tenants.js';

const ports = () => {
  const tenants = new InMemoryTenants();
  const apiKeys = new InMemoryApiKeys();
  const deps: TenantsPorts = {
    tenants,
    apiKeys,
    clock: new VirtualClock(new Date('2030-05-01T10:00:00Z')),
    defaults: { requestsPerHour: 500, paymentCreationsPerHour: 50 },
  };
  return { tenants, apiKeys, deps };
};

describe('create a tenant (operator)', () => {
  it('stores the tenant with its first application and API key; secrets are returned once and kept only as hashes', async () => {
    const { tenants, deps } = ports();
    const made = await createTenant({ name: 'Acme Shop', scopes: ['write', 'read'] }, deps);

    expect(made.tenant).toMatchObject({
      name: 'Acme Shop',
      status: 'active',
      account_type: 'business',
      created_at: '2030-05-01T10:00:00.000Z',
      allowed_scopes: ['read', 'write'],
    });
    expect(made.tenant.settings).toMatchObject({ requests_per_hour: 500, payment_creations_per_hour: 50 });
    expect(await tenants.get(made.tenant.id)).toEqual(made.tenant);
    expect(made.clientId).toMatch(/^gc_/);
    expect(made.clientSecret).toMatch(/^gcs_/);
    expect(made.apiKey).toMatch(/^gak_/);

    const [app] = tenants.apps;
    const [key] = tenants.keys;
    expect(app?.app).toMatchObject({ tenantId: made.tenant.id, clientId: made.clientId, name: 'Default application', scopes: ['read', 'write'] });
    expect(app?.secretHash).not.toContain(made.clientSecret);
    expect(await verifySecret(made.clientSecret, app?.secretHash ?? '')).toBe(true);
    expect(key?.key).toMatchObject({ tenantId: made.tenant.id, prefix: made.apiKey.slice(0, 10), status: 'active', scopes: ['read', 'write'] });
    expect(key?.keyHash).toBe(sha256Hex(made.apiKey));
  });

  it('refuses a nameless tenant', async () => {
    const { tenants, deps } = ports();
    await expect(createTenant({ name: '  ' }, deps)).rejects.toThrow();
    expect(await tenants.list()).toHaveLength(0);
  });
});

describe('suspend, reactivate and configure a tenant', () => {
  it('changes the status and answers the tenant as stored', async () => {
    const { deps } = ports();
    const { tenant } = await createTenant({ name: 'Acme' }, deps);
    expect((await changeTenantStatus({ tenant_id: tenant.id, status: 'suspended' }, deps)).status).toBe('suspended');
    expect((await requireTenant(tenant.id, deps)).status).toBe('suspended');
    expect((await changeTenantStatus({ tenant_id: tenant.id, status: 'active' }, deps)).status).toBe('active');
    expect((await allTenants(deps)).map((t) => t.id)).toEqual([tenant.id]);
  });

  it('answers not_found for an unknown tenant and invalid_request for an unknown status', async () => {
    const { deps } = ports();
    const unknown = '00000000-0000-4000-8000-000000000000';
    await expect(changeTenantStatus({ tenant_id: unknown, status: 'suspended' }, deps)).rejects.toBeInstanceOf(NotFoundError);
    await expect(requireTenant(unknown, deps)).rejects.toBeInstanceOf(NotFoundError);
    await expect(configureTenant({ tenant_id: unknown, requests_per_hour: 10 }, deps)).rejects.toBeInstanceOf(NotFoundError);
    await expect(changeTenantStatus({ tenant_id: unknown, status: 'gone' as 'active' }, deps)).rejects.toThrow();
  });

  it('configures settings and allowed scopes', async () => {
    const { deps } = ports();
    const { tenant } = await createTenant({ name: 'Acme' }, deps);
    const updated = await configureTenant(
      { tenant_id: tenant.id, requests_per_hour: 42, is_ip_whitelist_enabled: true, ip_whitelist: ['10.0.0.0/8'], scopes: ['admin', 'read'] },
      deps,
    );
    expect(updated.settings).toMatchObject({
      requests_per_hour: 42,
      is_ip_whitelist_enabled: true,
      ip_whitelist: ['10.0.0.0/8'],
      payment_creations_per_hour: 50,
    });
    expect(updated.allowed_scopes).toEqual(['read', 'admin']);
    await expect(configureTenant({ tenant_id: tenant.id, ip_whitelist: ['not an address'] }, deps)).rejects.toThrow();
  });
});

describe('API keys', () => {
  it("are created within the tenant's scopes, listed, and revoked", async () => {
    const { apiKeys, deps } = ports();
    const { tenant } = await createTenant({ name: 'Acme', scopes: ['read', 'write'] }, deps);
    const { key, apiKey } = await createApiKey({ tenant_id: tenant.id, scopes: ['read'] }, deps);
    expect(key).toMatchObject({ tenantId: tenant.id, name: 'API key', scopes: ['read'], status: 'active', createdAt: '2030-05-01T10:00:00.000Z' });
    expect(apiKeys.keys[0]?.keyHash).toBe(sha256Hex(apiKey));
    await expect(createApiKey({ tenant_id: tenant.id, scopes: ['admin'] }, deps)).rejects.toBeInstanceOf(PermissionError);
    expect((await apiKeysOf(tenant.id, deps)).map((k) => k.id)).toEqual([key.id]);
    await revokeKey(tenant.id, key.id, deps);
    expect((await apiKeysOf(tenant.id, deps))[0]?.status).toBe('revoked');
    await expect(revokeKey(tenant.id, 'nope', deps)).rejects.toBeInstanceOf(NotFoundError);
  });
});
