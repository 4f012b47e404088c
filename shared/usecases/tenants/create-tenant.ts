import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { SCOPES, sortScopes, type Scope } from '../../domain/scopes.js';
import { defaultSettings, schemaNameFor, type Tenant } from '../../domain/tenant.js';
import { hashSecret, newId, randomSecret, sha256Hex, tenantSecret } from '../../security/secrets.js';
import type { TenantsPorts } from './ports.js';

/**
 * Operator use case: a tenant with its first OAuth application and API key, written in one transaction.
 * The client secret and API key are returned once and stored only as hashes.
 */
export const CreateTenantInput = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1).max(200),
    account_type: z.enum(['individual', 'business']).default('business'),
    contact_email: z.string().email().nullable().default(null),
    /** The most this tenant's credentials may hold. Only the operator can grant `admin`. */
    scopes: z.array(z.enum(SCOPES)).min(1).default(['read', 'write']),
  }),
);
export type CreateTenantInput = z.input<ReturnType<typeof CreateTenantInput>>;

export interface CreatedTenant {
  readonly tenant: Tenant;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly apiKey: string;
}

export const newClientId = (): string => randomSecret('gc_', 16);
export const newClientSecret = (): string => randomSecret('gcs_', 32);
/** An API key naming its tenant (shared/security/secrets.ts `tenantSecret`). */
export const newApiKey = (tenantId: string): string => tenantSecret('gak_', tenantId);

export async function createTenant(raw: CreateTenantInput, deps: Pick<TenantsPorts, 'tenants' | 'clock' | 'defaults'>): Promise<CreatedTenant> {
  const input = CreateTenantInput().parse(raw);
  const now = deps.clock.now();
  const id = newId();
  const scopes: Scope[] = sortScopes(input.scopes);
  const tenant: Tenant = {
    id,
    name: input.name,
    schema_name: schemaNameFor(input.name, id.slice(0, 8)),
    account_type: input.account_type,
    status: 'active',
    created_at: now.toISOString(),
    contact_email: input.contact_email,
    allowed_scopes: scopes,
    settings: defaultSettings({
      requestsPerHour: deps.defaults.requestsPerHour,
      paymentCreationsPerHour: deps.defaults.paymentCreationsPerHour,
    }),
  };
  const clientId = newClientId();
  const clientSecret = newClientSecret();
  const apiKey = newApiKey(id);
  const createdAt = now.toISOString();
  await deps.tenants.create({
    tenant,
    app: { id: newId(), tenantId: id, name: 'Default application', clientId, scopes, createdAt },
    appSecretHash: await hashSecret(clientSecret),
    apiKey: { id: newId(), tenantId: id, name: 'Default key', prefix: apiKey.slice(0, 10), scopes, status: 'active', createdAt },
    apiKeyHash: sha256Hex(apiKey),
  });
  return { tenant, clientId, clientSecret, apiKey };
}
