import { BatchWriteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AccessToken, ApiKey, ClientCredential, OAuthApp } from '../domain/credentials.js';
import type { Scope } from '../domain/scopes.js';
import type { OAuthAppRepository, TokenRepository } from '../usecases/auth/ports.js';
import type { ApiKeyRepository } from '../usecases/tenants/ports.js';
import { db, tableName } from './client.js';
import { keys } from './keys.js';
import { transactWrite, TransactionConditionError, type TransactItem } from './transact.js';
import { integer } from './values.js';

/**
 * OAuth applications (client credentials), access tokens and API keys. Secrets never reach the table:
 * client secrets as scrypt hashes, tokens and API keys as SHA-256 hashes.
 */

export type { AccessToken, ApiKey, ClientCredential, OAuthApp } from '../domain/credentials.js';

const T = () => tableName();

export function putAppItems(app: OAuthApp, secretHash: string): TransactItem[] {
  return [
    {
      Put: {
        TableName: T(),
        Item: {
          ...keys.app(app.tenantId, app.id),
          type: 'oauth_app',
          app_id: app.id,
          tenant_id: app.tenantId,
          name: app.name,
          client_id: app.clientId,
          scopes: [...app.scopes],
          created_at: app.createdAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: T(),
        Item: {
          ...keys.clientCredential(app.clientId),
          type: 'client_credential',
          client_id: app.clientId,
          tenant_id: app.tenantId,
          app_id: app.id,
          secret_hash: secretHash,
          scopes: [...app.scopes],
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

const toApp = (item: Record<string, unknown>): OAuthApp => ({
  id: item.app_id as string,
  tenantId: item.tenant_id as string,
  name: item.name as string,
  clientId: item.client_id as string,
  scopes: item.scopes as Scope[],
  createdAt: item.created_at as string,
});

export async function listApps(tenantId: string): Promise<OAuthApp[]> {
  const { pk, skPrefix } = keys.appPrefix(tenantId);
  const { Items } = await db().send(
    new QueryCommand({
      TableName: T(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
    }),
  );
  return (Items ?? []).map(toApp).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export async function getApp(tenantId: string, appId: string): Promise<OAuthApp | null> {
  const { Item } = await db().send(new GetCommand({ TableName: T(), Key: keys.app(tenantId, appId) }));
  return Item ? toApp(Item) : null;
}

/** Deletes the app and its credential together, then revokes the tokens issued to it. */
export async function deleteApp(app: OAuthApp): Promise<boolean> {
  try {
    await transactWrite([
      { Delete: { TableName: T(), Key: keys.app(app.tenantId, app.id), ConditionExpression: 'attribute_exists(pk)' } },
      { Delete: { TableName: T(), Key: keys.clientCredential(app.clientId) } },
    ]);
  } catch (error) {
    if (error instanceof TransactionConditionError) return false;
    throw error;
  }
  await deleteTokensOfClient(app.clientId);
  return true;
}

export async function getClientCredential(clientId: string): Promise<ClientCredential | null> {
  const { Item } = await db().send(new GetCommand({ TableName: T(), Key: keys.clientCredential(clientId) }));
  if (!Item) return null;
  return {
    clientId: Item.client_id as string,
    tenantId: Item.tenant_id as string,
    appId: Item.app_id as string,
    secretHash: Item.secret_hash as string,
    scopes: Item.scopes as Scope[],
  };
}

export async function putAccessToken(token: AccessToken): Promise<void> {
  const expiresIso = new Date(token.expiresAt * 1000).toISOString();
  await transactWrite([
    {
      Put: {
        TableName: T(),
        Item: {
          ...keys.accessToken(token.tokenHash),
          ...keys.tokensOfClient(token.clientId, expiresIso, token.tokenHash),
          type: 'access_token',
          tenant_id: token.tenantId,
          client_id: token.clientId,
          scopes: [...token.scopes],
          expires_at: token.expiresAt,
          ttl: token.expiresAt,
        },
      },
    },
  ]);
}

/** An access token's item (read by shared/store/auth-reads.ts, strongly consistent). */
export const accessTokenFromItem = (tokenHash: string, item: Record<string, unknown>): AccessToken => ({
  tokenHash,
  tenantId: item.tenant_id as string,
  clientId: item.client_id as string,
  scopes: item.scopes as Scope[],
  expiresAt: integer(item.expires_at),
});

/** Deletes a token only if it belongs to `clientId` (RFC 7009: a client revokes only its own tokens). */
export async function deleteAccessToken(tokenHash: string, clientId: string): Promise<void> {
  try {
    await transactWrite([
      {
        Delete: {
          TableName: T(),
          Key: keys.accessToken(tokenHash),
          ConditionExpression: 'client_id = :c',
          ExpressionAttributeValues: { ':c': clientId },
        },
      },
    ]);
  } catch (error) {
    if (!(error instanceof TransactionConditionError)) throw error;
  }
}

async function deleteTokensOfClient(clientId: string): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: T(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': keys.tokensOfClientPartition(clientId) },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: start,
      }),
    );
    const items = page.Items ?? [];
    for (let i = 0; i < items.length; i += 25) {
      const chunk = items.slice(i, i + 25).map((it) => ({ DeleteRequest: { Key: { pk: it.pk, sk: it.sk } } }));
      await db().send(new BatchWriteCommand({ RequestItems: { [T()]: chunk } }));
    }
    start = page.LastEvaluatedKey;
  } while (start);
}

export function putApiKeyItems(key: ApiKey, keyHash: string): TransactItem[] {
  return [
    {
      Put: {
        TableName: T(),
        Item: {
          ...keys.apiKey(key.tenantId, key.id),
          type: 'api_key',
          key_id: key.id,
          key_hash: keyHash,
          tenant_id: key.tenantId,
          name: key.name,
          prefix: key.prefix,
          scopes: [...key.scopes],
          status: key.status,
          created_at: key.createdAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: T(),
        Item: {
          ...keys.apiKeyLookup(keyHash),
          type: 'api_key_lookup',
          key_id: key.id,
          tenant_id: key.tenantId,
          scopes: [...key.scopes],
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/** What an API key's lookup item tells: the key, its tenant and its scopes. */
export interface ApiKeyLookup {
  readonly keyId: string;
  readonly tenantId: string;
  readonly scopes: Scope[];
}

/** An API key's lookup item (read by shared/store/auth-reads.ts, strongly consistent). */
export const apiKeyLookupFromItem = (item: Record<string, unknown>): ApiKeyLookup => ({
  keyId: item.key_id as string,
  tenantId: item.tenant_id as string,
  scopes: item.scopes as Scope[],
});

const toApiKey = (item: Record<string, unknown>): ApiKey => ({
  id: item.key_id as string,
  tenantId: item.tenant_id as string,
  name: item.name as string,
  prefix: item.prefix as string,
  scopes: item.scopes as Scope[],
  status: item.status as ApiKey['status'],
  createdAt: item.created_at as string,
});

export async function listApiKeys(tenantId: string): Promise<ApiKey[]> {
  const { pk, skPrefix } = keys.apiKeyPrefix(tenantId);
  const { Items } = await db().send(
    new QueryCommand({
      TableName: T(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
    }),
  );
  return (Items ?? []).map(toApiKey);
}

/** Marks the key revoked and deletes its lookup item in one transaction; false when unknown. */
export async function revokeApiKey(tenantId: string, keyId: string): Promise<boolean> {
  const { Item } = await db().send(new GetCommand({ TableName: T(), Key: keys.apiKey(tenantId, keyId) }));
  if (!Item) return false;
  await transactWrite([
    {
      Update: {
        TableName: T(),
        Key: keys.apiKey(tenantId, keyId),
        UpdateExpression: 'SET #s = :r',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':r': 'revoked' },
      },
    },
    { Delete: { TableName: T(), Key: keys.apiKeyLookup(Item.key_hash as string) } },
  ]);
  return true;
}

/** The DynamoDB OAuth applications (shared/usecases/auth/ports.ts). */
export const dynamoOAuthApps: OAuthAppRepository = {
  create: async (app, secretHash) => transactWrite(putAppItems(app, secretHash)),
  list: listApps,
  get: getApp,
  remove: deleteApp,
};

/** The DynamoDB client credentials and access tokens (shared/usecases/auth/ports.ts). */
export const dynamoTokens: TokenRepository = {
  clientCredential: getClientCredential,
  putAccessToken,
  deleteAccessToken,
};

/** The DynamoDB API keys (shared/usecases/tenants/ports.ts). */
export const dynamoApiKeys: ApiKeyRepository = {
  create: async (key, keyHash) => transactWrite(putApiKeyItems(key, keyHash)),
  list: listApiKeys,
  revoke: revokeApiKey,
};
