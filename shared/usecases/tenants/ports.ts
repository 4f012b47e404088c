import type { Clock } from '../../domain/clock.js';
import type { ApiKey, OAuthApp } from '../../domain/credentials.js';
import type { Scope } from '../../domain/scopes.js';
import type { Tenant, TenantDefaults, SettingsPatch, TenantStatus } from '../../domain/tenant.js';

/** What the tenant use cases need (shared/store/tenants.ts and shared/store/credentials.ts are the DynamoDB ones). */

/** A new tenant with its first application and API key, stored in one transaction. */
export interface NewTenant {
  readonly tenant: Tenant;
  readonly app: OAuthApp;
  readonly appSecretHash: string;
  readonly apiKey: ApiKey;
  readonly apiKeyHash: string;
}

export interface TenantRepository {
  get(tenantId: string): Promise<Tenant | null>;
  list(): Promise<Tenant[]>;
  create(created: NewTenant): Promise<void>;
  /** False when the tenant does not exist. */
  setStatus(tenantId: string, status: TenantStatus): Promise<boolean>;
  /** The updated tenant, or null when it does not exist. */
  updateSettings(tenantId: string, patch: SettingsPatch): Promise<Tenant | null>;
  setAllowedScopes(tenantId: string, scopes: readonly Scope[]): Promise<void>;
}

export interface ApiKeyRepository {
  create(key: ApiKey, keyHash: string): Promise<void>;
  list(tenantId: string): Promise<ApiKey[]>;
  /** False when the key is unknown. */
  revoke(tenantId: string, keyId: string): Promise<boolean>;
}

export interface TenantsPorts {
  readonly tenants: TenantRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly clock: Clock;
  /** Request limits a new tenant starts with. */
  readonly defaults: TenantDefaults;
}
