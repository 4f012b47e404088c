import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { WebhookSettings } from '../../domain/webhooks.js';
import type { WebhookSettingsRepository } from '../../usecases/webhooks/ports.js';
import { db, tableName } from '../client.js';
import { keys } from '../keys.js';
import { isConditionalCheckFailed, transactWrite, TransactionConditionError } from '../transact.js';
import { securityEventItem } from './common.js';

/**
 * Variant-A settings: one item per tenant (`WEBHOOK_SETTINGS`), written with optimistic concurrency on `updated_at`.
 * The delivery worker's slow mark (`slow_until`) is set beside them without touching `updated_at`; a change of
 * the settings (a Put) starts without it.
 */

const SettingsItem = lazySchema(() =>
  z
    .object({
      tenant_id: z.string(),
      url: z.string(),
      secret_cipher: z.string(),
      secret_hint: z.string(),
      enabled_events: z.array(z.string()).nullish(),
      created_at: z.string(),
      updated_at: z.string(),
      slow_until: z.string().nullish(),
    })
    .transform((item): WebhookSettings => ({
      tenantId: item.tenant_id,
      url: item.url,
      secretCipher: item.secret_cipher,
      secretHint: item.secret_hint,
      enabledEvents: item.enabled_events ?? null,
      createdAt: item.created_at,
      updatedAt: item.updated_at,
      slowUntil: item.slow_until ?? null,
    })),
);

export const dynamoWebhookSettings: WebhookSettingsRepository = {
  async get(tenantId) {
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookSettings(tenantId) }));
    return Item ? SettingsItem().parse(Item) : null;
  },

  async save(settings, expectedUpdatedAt, change) {
    try {
      await transactWrite([
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.webhookSettings(settings.tenantId),
              type: 'webhook_settings',
              tenant_id: settings.tenantId,
              url: settings.url,
              secret_cipher: settings.secretCipher,
              secret_hint: settings.secretHint,
              enabled_events: settings.enabledEvents === null ? null : [...settings.enabledEvents],
              created_at: settings.createdAt,
              updated_at: settings.updatedAt,
            },
            ...(expectedUpdatedAt === null
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : { ConditionExpression: 'updated_at = :u', ExpressionAttributeValues: { ':u': expectedUpdatedAt } }),
          },
        },
        securityEventItem(change),
      ]);
      return true;
    } catch (error) {
      if (error instanceof TransactionConditionError) return false;
      throw error;
    }
  },

  async markSlow(tenantId, until) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookSettings(tenantId),
          UpdateExpression: until ? 'SET slow_until = :u' : 'REMOVE slow_until',
          ConditionExpression: 'attribute_exists(pk)',
          ...(until ? { ExpressionAttributeValues: { ':u': until.toISOString() } } : {}),
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  },
};
