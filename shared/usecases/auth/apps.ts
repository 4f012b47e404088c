import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { NotFoundError, PermissionError } from '../../domain/errors.js';
import { missingScopes, SCOPES, sortScopes, type Scope } from '../../domain/scopes.js';
import { hashSecret, newId } from '../../security/secrets.js';
import type { OAuthApp } from '../../domain/credentials.js';
import { newClientId, newClientSecret } from '../tenants/create-tenant.js';
import type { AuthPorts } from './ports.js';

/** OAuth applications of a tenant. An app never carries more scopes than the credential that made it. */

export const CreateAppInput = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1).max(100),
    scopes: z.array(z.enum(SCOPES)).min(1).optional(),
  }),
);
export type CreateAppInput = z.infer<ReturnType<typeof CreateAppInput>>;

export interface AppCreator {
  readonly tenantId: string;
  /** Scopes held by the creating credential (a token, or the operator's tenant maximum). */
  readonly scopes: readonly Scope[];
}

export async function createApp(
  input: CreateAppInput,
  creator: AppCreator,
  now: Date,
  deps: Pick<AuthPorts, 'apps'>,
): Promise<{ app: OAuthApp; clientSecret: string }> {
  const scopes = sortScopes(input.scopes ?? creator.scopes.filter((s) => s !== 'admin'));
  if (missingScopes(scopes, creator.scopes).length > 0) throw new PermissionError(scopes, creator.scopes);
  const app: OAuthApp = { id: newId(), tenantId: creator.tenantId, name: input.name, clientId: newClientId(), scopes, createdAt: now.toISOString() };
  const clientSecret = newClientSecret();
  await deps.apps.create(app, await hashSecret(clientSecret));
  return { app, clientSecret };
}

export const appsOf = (tenantId: string, deps: Pick<AuthPorts, 'apps'>): Promise<OAuthApp[]> => deps.apps.list(tenantId);

export async function removeApp(tenantId: string, appId: string, deps: Pick<AuthPorts, 'apps'>): Promise<void> {
  const app = z.string().uuid().safeParse(appId).success ? await deps.apps.get(tenantId, appId) : null;
  if (!app || !(await deps.apps.remove(app))) throw new NotFoundError('No such application.', { id: appId });
}
