import type { ApiKey, OAuthApp } from '../../../shared/domain/credentials.js';
import type { Scope } from '../../../shared/domain/scopes.js';
import type { SettingsPatch, Tenant, TenantStatus } from '../../../shared/domain/tenant.js';
import { defaultSettings, patchSettings } from '../../../shared/domain/tenant.js';
import type { ApiKeyRepository, NewTenant, TenantRepository } from '../../../shared/usecases/tenants/ports.js';

/** Tenants in memory, with the first credentials a new tenant is created with. */
export class InMemoryTenants implements TenantRepository {
  readonly byId = new Map<string, Tenant>();
  readonly apps: { app: OAuthApp; secretHash: string }[] = [];
  readonly keys: { key: ApiKey; keyHash: string }[] = [];

  constructor(tenants: readonly Tenant[] = []) {
    for (const tenant of tenants) this.byId.set(tenant.id, tenant);
  }

  async get(tenantId: string): Promise<Tenant | null> {
    return this.byId.get(tenantId) ?? null;
  }

  async list(): Promise<Tenant[]> {
    return [...this.byId.values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async create(created: NewTenant): Promise<void> {
    if (this.byId.has(created.tenant.id)) throw new Error(`tenant ${created.tenant.id} exists`);
    this.byId.set(created.tenant.id, created.tenant);
    this.apps.push({ app: created.app, secretHash: created.appSecretHash });
    this.keys.push({ key: created.apiKey, keyHash: created.apiKeyHash });
  }

  async setStatus(tenantId: string, status: TenantStatus): Promise<boolean> {
    const tenant = this.byId.get(tenantId);
    if (!tenant) return false;
    this.byId.set(tenantId, { ...tenant, status });
    return true;
  }

  async updateSettings(tenantId: string, patch: SettingsPatch): Promise<Tenant | null> {
    const tenant = this.byId.get(tenantId);
    if (!tenant) return null;
    const updated = { ...tenant, settings: patchSettings(tenant.settings, patch) };
    this.byId.set(tenantId, updated);
    return updated;
  }

  async setAllowedScopes(tenantId: string, scopes: readonly Scope[]): Promise<void> {
    const tenant = this.byId.get(tenantId);
    if (tenant) this.byId.set(tenantId, { ...tenant, allowed_scopes: [...scopes] });
  }
}

/** API keys in memory. */
export class InMemoryApiKeys implements ApiKeyRepository {
  readonly keys: { key: ApiKey; keyHash: string }[] = [];

  async create(key: ApiKey, keyHash: string): Promise<void> {
    this.keys.push({ key, keyHash });
  }

  async list(tenantId: string): Promise<ApiKey[]> {
    return this.keys.filter((k) => k.key.tenantId === tenantId).map((k) => k.key);
  }

  async revoke(tenantId: string, keyId: string): Promise<boolean> {
    const i = this.keys.findIndex((k) => k.key.tenantId === tenantId && k.key.id === keyId);
    const found = this.keys[i];
    if (!found) return false;
    this.keys[i] = { ...found, key: { ...found.key, status: 'revoked' } };
    return true;
  }
}

/** An active business tenant with the default settings; `overrides` change any field. */
export function aTenant(overrides: Partial<Tenant> = {}): Tenant {
  return {
    id: 't1',
    name: 'Acme',
    schema_name: 'acme_t1',
    account_type: 'business',
    status: 'active',
    created_at: '2030-01-01T00:00:00.000Z',
    contact_email: null,
    allowed_scopes: ['read', 'write'],
    settings: defaultSettings({ requestsPerHour: 1000, paymentCreationsPerHour: 100 }),
    ...overrides,
  };
}
