import * as z from 'zod';
import { NotFoundError, PermissionError } from '../../domain/errors.js';
import { missingScopes, SCOPES, sortScopes } from '../../domain/scopes.js';
import { newId, sha256Hex } from '../../security/secrets.js';
import type { ApiKey } from '../../domain/credentials.js';
import { newApiKey } from './create-tenant.js';
import { requireTenant } from './manage-tenants.js';
import type { TenantsPorts } from './ports.js';

/** API keys (`X-API-Key`): shown once, stored as SHA-256 hashes, scopes within the tenant's. */

export const CreateApiKeyInput = z.object({
  tenant_id: z.string().uuid(),
  name: z.string().trim().min(1).max(100).default('API key'),
  scopes: z.array(z.enum(SCOPES)).min(1).optional(),
});

export async function createApiKey(
  raw: z.input<typeof CreateApiKeyInput>,
  deps: Pick<TenantsPorts, 'tenants' | 'apiKeys' | 'clock'>,
): Promise<{ key: ApiKey; apiKey: string }> {
  const input = CreateApiKeyInput.parse(raw);
  const now = deps.clock.now();
  const tenant = await requireTenant(input.tenant_id, deps);
  const scopes = sortScopes(input.scopes ?? tenant.allowed_scopes);
  if (missingScopes(scopes, tenant.allowed_scopes).length > 0) throw new PermissionError(scopes, tenant.allowed_scopes);
  const apiKey = newApiKey(tenant.id);
  const key: ApiKey = {
    id: newId(),
    tenantId: tenant.id,
    name: input.name,
    prefix: apiKey.slice(0, 10),
    scopes,
    status: 'active',
    createdAt: now.toISOString(),
  };
  await deps.apiKeys.create(key, sha256Hex(apiKey));
  return { key, apiKey };
}

export const apiKeysOf = (tenantId: string, deps: Pick<TenantsPorts, 'apiKeys'>): Promise<ApiKey[]> => deps.apiKeys.list(tenantId);

export async function revokeKey(tenantId: string, keyId: string, deps: Pick<TenantsPorts, 'apiKeys'>): Promise<void> {
  if (!(await deps.apiKeys.revoke(tenantId, keyId))) throw new NotFoundError(`No API key ${keyId} for tenant ${tenantId}.`);
}
