import { z } from 'zod';
import { NotFoundError, PermissionError } from '../../domain/errors.js';
import { missingScopes, SCOPES, sortScopes } from '../../domain/scopes.js';
import { newId, sha256Hex } from '../../security/secrets.js';
import { listApiKeys, putApiKeyItems, revokeApiKey, type ApiKey } from '../../store/credentials.js';
import { transactWrite } from '../../store/transact.js';
import { newApiKey } from './create-tenant.js';
import { requireTenant } from './manage-tenants.js';

/** API keys (`X-API-Key`): shown once, stored as SHA-256 hashes, scopes within the tenant's. */

export const CreateApiKeyInput = z.object({
  tenant_id: z.string().uuid(),
  name: z.string().trim().min(1).max(100).default('API key'),
  scopes: z.array(z.enum(SCOPES)).min(1).optional(),
});

export async function createApiKey(raw: z.input<typeof CreateApiKeyInput>, now: Date = new Date()): Promise<{ key: ApiKey; apiKey: string }> {
  const input = CreateApiKeyInput.parse(raw);
  const tenant = await requireTenant(input.tenant_id);
  const scopes = sortScopes(input.scopes ?? tenant.allowed_scopes);
  if (missingScopes(scopes, tenant.allowed_scopes).length > 0) throw new PermissionError(scopes, tenant.allowed_scopes);
  const apiKey = newApiKey();
  const key: ApiKey = { id: newId(), tenantId: tenant.id, name: input.name, prefix: apiKey.slice(0, 10), scopes, status: 'active', createdAt: now.toISOString() };
  await transactWrite(putApiKeyItems(key, sha256Hex(apiKey)));
  return { key, apiKey };
}

export const apiKeysOf = (tenantId: string): Promise<ApiKey[]> => listApiKeys(tenantId);

export async function revokeKey(tenantId: string, keyId: string): Promise<void> {
  if (!(await revokeApiKey(tenantId, keyId))) throw new NotFoundError(`No API key ${keyId} for tenant ${tenantId}.`);
}
