/** The gateway's TypeScript client (docs/client.md): typed calls, safe retries, pagination and webhook verification. */
export { createGatewayClient, GatewayAuthError } from './client.js';
export type { ErrorEnvelope, GatewayClient, GatewayClientOptions, GatewayCredentials } from './client.js';
export { GatewayListError } from './paginate.js';
export type { ListItem, ListPath, Paginate, PaginateInit } from './paginate.js';
export { retryAfterMs } from './retry.js';
export type { FetchLike, RetryInfo, RetryOptions } from './retry.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type {
  DeliveryEnvelope,
  SubscriptionEnvelope,
  VerifyWebhookOptions,
  WebhookEvent,
  WebhookEventData,
  WebhookEventName,
  WebhookHeaders,
  WebhookVerificationErrorCode,
} from './webhooks.js';
export type { components, paths, webhooks } from './schema.js';
