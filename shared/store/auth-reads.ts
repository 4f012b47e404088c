import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Tenant } from '../domain/tenant.js';
import { db, tableName } from './client.js';
import { accessTokenFromItem, apiKeyLookupFromItem, type AccessToken, type ApiKeyLookup } from './credentials.js';
import { keys, type Key } from './keys.js';
import { getTenant, tenantFromItem } from './tenants.js';

/**
 * What authenticating a request reads: a credential's item and its tenant's item, both strongly consistent, so a
 * token or API key revoked, or a tenant suspended, a moment ago is refused on the next request. When the tenant
 * is known beforehand (the credential names it: shared/security/secrets.ts `tenantNamedBy`), both items come in
 * ONE BatchGetItem; the tenant named is only a guess, which the credential's own item confirms or not.
 */
export interface CredentialRead<C> {
  readonly credential: C | null;
  /** The item of the tenant asked for, when one was asked for and exists. */
  readonly tenant: Tenant | null;
}

const MAX_ATTEMPTS = 8;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** BatchGetItem of a few keys, strongly consistent; keys DynamoDB leaves unprocessed (throttling) are asked again. */
async function batchGetConsistent(wanted: readonly Key[]): Promise<Record<string, unknown>[]> {
  const table = tableName();
  const found: Record<string, unknown>[] = [];
  let pending: Key[] = [...wanted];
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} key(s) unprocessed after ${MAX_ATTEMPTS} attempts`);
    if (attempt > 1) await sleep(Math.min(500, 10 * 2 ** attempt) * (0.5 + Math.random() / 2));
    const out = await db().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
    found.push(...(out.Responses?.[table] ?? []));
    pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as Key[];
  }
  return found;
}

async function readWithTenant<C>(key: Key, tenantId: string | null, toCredential: (item: Record<string, unknown>) => C): Promise<CredentialRead<C>> {
  if (tenantId === null) {
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    return { credential: Item ? toCredential(Item) : null, tenant: null };
  }
  const tenantKey = keys.tenant(tenantId);
  const items = await batchGetConsistent([key, tenantKey]);
  // BatchGetItem answers in no particular order.
  const find = (k: Key) => items.find((item) => item.pk === k.pk && item.sk === k.sk);
  const credential = find(key);
  const tenant = find(tenantKey);
  return { credential: credential ? toCredential(credential) : null, tenant: tenant ? tenantFromItem(tenant) : null };
}

/** An access token by its hash, with the tenant `tenantId` (null: the token alone). */
export const readAccessToken = (tokenHash: string, tenantId: string | null): Promise<CredentialRead<AccessToken>> =>
  readWithTenant(keys.accessToken(tokenHash), tenantId, (item) => accessTokenFromItem(tokenHash, item));

/** An API key's lookup item by the key's hash, with the tenant `tenantId` (null: the key alone). */
export const readApiKey = (keyHash: string, tenantId: string | null): Promise<CredentialRead<ApiKeyLookup>> =>
  readWithTenant(keys.apiKeyLookup(keyHash), tenantId, apiKeyLookupFromItem);

/** A tenant, strongly consistent. */
export const readTenant = (tenantId: string): Promise<Tenant | null> => getTenant(tenantId, { consistent: true });
