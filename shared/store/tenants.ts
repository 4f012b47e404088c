import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Scope } from '../domain/scopes.js';
import type { AutoRefundExcess, SettingsPatch, Tenant, TenantSettings, TenantStatus } from '../domain/tenant.js';
import { DEFAULT_AUTO_REFUND_EXCESS } from '../domain/tenant.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { TenantRepository } from '../usecases/tenants/ports.js';
import { putApiKeyItems, putAppItems } from './credentials.js';
import { isConditionalCheckFailed, transactWrite, type TransactItem } from './transact.js';
import { integer } from './values.js';

/** Tenant records. Settings are stored as a map; counters as exact numbers. */

type Stored = Record<string, unknown>;

/** A tenant item as the domain's Tenant. */
export function tenantFromItem(item: Stored): Tenant {
  const settings = item.settings as Record<string, unknown>;
  return {
    id: item.tenant_id as string,
    name: item.name as string,
    schema_name: item.schema_name as string,
    account_type: item.account_type as Tenant['account_type'],
    status: item.status as TenantStatus,
    created_at: item.created_at as string,
    contact_email: (item.contact_email as string | null | undefined) ?? null,
    allowed_scopes: item.allowed_scopes as Scope[],
    settings: {
      ...(settings as unknown as TenantSettings),
      requests_per_hour: integer(settings.requests_per_hour),
      payment_creations_per_hour: integer(settings.payment_creations_per_hour),
      payment_expiry_minutes: integer(settings.payment_expiry_minutes),
      // Tenants created before the setting existed have it off.
      auto_refund_excess: (settings.auto_refund_excess as AutoRefundExcess | undefined) ?? DEFAULT_AUTO_REFUND_EXCESS,
    },
  };
}

export function putTenantItem(tenant: Tenant): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.tenant(tenant.id),
        ...keys.tenantList(tenant.created_at, tenant.id),
        type: 'tenant',
        tenant_id: tenant.id,
        name: tenant.name,
        schema_name: tenant.schema_name,
        account_type: tenant.account_type,
        status: tenant.status,
        created_at: tenant.created_at,
        contact_email: tenant.contact_email,
        allowed_scopes: [...tenant.allowed_scopes],
        settings: tenant.settings,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** A tenant; `consistent`: a strongly consistent read (authentication: a tenant suspended a moment ago is refused). */
export async function getTenant(tenantId: string, options: { readonly consistent?: boolean } = {}): Promise<Tenant | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ...(options.consistent ? { ConsistentRead: true } : {}) }),
  );
  return Item ? tenantFromItem(Item) : null;
}

export async function listTenants(): Promise<Tenant[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': keys.tenantListPartition },
  });
  return items.map(tenantFromItem);
}

/** Sets the status; false when the tenant does not exist. */
export async function setTenantStatus(tenantId: string, status: TenantStatus): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.tenant(tenantId),
        UpdateExpression: 'SET #s = :s',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': status },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** Replaces some settings (a shallow merge of top-level setting fields). */
/** Sets the fields the patch gives, each limit on its own path (so one limit changes without the others). */
export async function updateTenantSettings(tenantId: string, patch: SettingsPatch): Promise<Tenant | null> {
  const { limits, ...rest } = patch;
  const given = (o: object) => Object.entries(o).filter(([, v]) => v !== undefined);
  const paths: [string[], unknown][] = [
    ...given(rest).map(([field, value]): [string[], unknown] => [[field], value]),
    ...given(limits ?? {}).map(([field, value]): [string[], unknown] => [['limits', field], value]),
  ];
  if (paths.length === 0) return getTenant(tenantId);
  const names: Record<string, string> = { '#settings': 'settings' };
  const values: Record<string, unknown> = {};
  const sets = paths.map(([path, value], i) => {
    const parts = path.map((field, j) => {
      names[`#f${i}_${j}`] = field;
      return `#f${i}_${j}`;
    });
    values[`:v${i}`] = value;
    return `#settings.${parts.join('.')} = :v${i}`;
  });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.tenant(tenantId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? tenantFromItem(Attributes) : null;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return null;
    throw error;
  }
}

/** The most this tenant's credentials may hold (operator only). */
export async function setAllowedScopes(tenantId: string, scopes: readonly Scope[]): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.tenant(tenantId),
      UpdateExpression: 'SET allowed_scopes = :s',
      ExpressionAttributeValues: { ':s': [...scopes] },
    }),
  );
}

/** The DynamoDB tenants (shared/usecases/tenants/ports.ts): a new tenant with its first credentials in one transaction. */
export const dynamoTenants: TenantRepository = {
  get: getTenant,
  list: listTenants,
  create: async (t) => transactWrite([putTenantItem(t.tenant), ...putAppItems(t.app, t.appSecretHash), ...putApiKeyItems(t.apiKey, t.apiKeyHash)]),
  setStatus: setTenantStatus,
  updateSettings: updateTenantSettings,
  setAllowedScopes,
};
