import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredRates } from '../domain/rates.js';
import type { Tenant } from '../domain/tenant.js';
import { batchGet, db, tableName } from './client.js';
import { accessTokenFromItem, apiKeyLookupFromItem, type AccessToken, type ApiKeyLookup } from './credentials.js';
import { keys, type Key } from './keys.js';
import { ratesFromItem } from './rates.js';
import { getTenant, tenantFromItem } from './tenants.js';
import { hourCounts, usageDayKey, type Counted } from './usage.js';

/**
 * What authenticating a request reads: a credential's item and its tenant's item, both strongly consistent, so a
 * token or API key revoked, or a tenant suspended, a moment ago is refused on the next request. When the tenant
 * is known beforehand (the credential names it: shared/security/secrets.ts `tenantNamedBy`), both items come in
 * ONE BatchGetItem; the tenant named is only a guess, which the credential's own item confirms or not. What the
 * route needs before its own work (`AlsoRead`: the tenant's usage of the day, the rates snapshot) comes in the
 * same BatchGetItem.
 */
export interface CredentialRead<C> {
  readonly credential: C | null;
  /** The item of the tenant asked for, when one was asked for and exists. */
  readonly tenant: Tenant | null;
  /** The current hour's counts of the tenant asked for, as read (nothing counted); null when not asked for. */
  readonly usage: Counted | null;
  /** The rates snapshot, when asked for (null: none stored yet). */
  readonly rates?: StoredRates | null;
}

/** Items read with the credential for the route. */
export interface AlsoRead {
  /** The tenant's usage item of `at`'s day (only with a tenant asked for): its hour's counts, and `bucket`'s. */
  readonly usage?: { readonly at: Date; readonly bucket?: string };
  /** The current rates snapshot. */
  readonly rates?: boolean;
}

async function readWithTenant<C>(
  key: Key,
  tenantId: string | null,
  toCredential: (item: Record<string, unknown>) => C,
  also: AlsoRead,
): Promise<CredentialRead<C>> {
  const tenantKey = tenantId === null ? null : keys.tenant(tenantId);
  const usage = tenantId === null ? null : (also.usage ?? null);
  const usageKey = usage && tenantId !== null ? usageDayKey(tenantId, usage.at) : null;
  const wanted = [key, tenantKey, usageKey, also.rates ? keys.ratesCurrent : null].filter((k): k is Key => k !== null);
  if (wanted.length === 1) {
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    return { credential: Item ? toCredential(Item) : null, tenant: null, usage: null };
  }
  const items = await batchGet(wanted, { consistent: true });
  // BatchGetItem answers in no particular order.
  const find = (k: Key | null) => (k ? (items.find((item) => item.pk === k.pk && item.sk === k.sk) ?? null) : null);
  const credential = find(key);
  const tenant = find(tenantKey);
  const rates = also.rates ? find(keys.ratesCurrent) : undefined;
  return {
    credential: credential ? toCredential(credential) : null,
    tenant: tenant ? tenantFromItem(tenant) : null,
    usage: usage ? hourCounts(find(usageKey), usage.at, usage.bucket) : null,
    ...(rates === undefined ? {} : { rates: rates && ratesFromItem(rates) }),
  };
}

/** An access token by its hash, with the tenant `tenantId` (null: the token alone) and what `also` asks. */
export const readAccessToken = (tokenHash: string, tenantId: string | null, also: AlsoRead = {}): Promise<CredentialRead<AccessToken>> =>
  readWithTenant(keys.accessToken(tokenHash), tenantId, (item) => accessTokenFromItem(tokenHash, item), also);

/** An API key's lookup item by the key's hash, with the tenant `tenantId` (null: the key alone) and what `also` asks. */
export const readApiKey = (keyHash: string, tenantId: string | null, also: AlsoRead = {}): Promise<CredentialRead<ApiKeyLookup>> =>
  readWithTenant(keys.apiKeyLookup(keyHash), tenantId, apiKeyLookupFromItem, also);

/** A tenant, strongly consistent. */
export const readTenant = (tenantId: string): Promise<Tenant | null> => getTenant(tenantId, { consistent: true });
