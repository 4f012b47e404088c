import type { WebhookPorts } from '../../usecases/webhooks/ports.js';
import { dynamoWebhookAttempts } from './attempts.js';
import { outboxSecurityEvents } from './common.js';
import { dynamoWebhookDeliveries } from './deliveries.js';
import { dynamoWebhookSettings } from './settings.js';
import { dynamoWebhookSubscriptions } from './subscriptions.js';

/** The DynamoDB repositories of the webhook ports, by the names the ports give them. */
export const dynamoWebhookRepositories: Pick<
  WebhookPorts,
  'webhookSettings' | 'webhookSubscriptions' | 'webhookDeliveries' | 'webhookAttempts' | 'securityEvents'
> = {
  webhookSettings: dynamoWebhookSettings,
  webhookSubscriptions: dynamoWebhookSubscriptions,
  webhookDeliveries: dynamoWebhookDeliveries,
  webhookAttempts: dynamoWebhookAttempts,
  securityEvents: outboxSecurityEvents,
};
