import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { verifyWebhook, WebhookVerificationError } from '@gateway/client';
import type { WebhookEvent } from '@gateway/client';

/**
 * A Lambda behind an API Gateway HTTP API (payload 2.0) receiving the gateway's webhooks. `event.body` is the body
 * as sent, base64 when `isBase64Encoded` (binary media types, or a content type API Gateway does not pass as text):
 * decode it to the bytes, never `JSON.parse` it before verifying.
 */
export function webhookHandler(secret: string | string[], onEvent: (event: WebhookEvent) => Promise<void> | void) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const body = event.body ?? '';
    const rawBody = event.isBase64Encoded ? Buffer.from(body, 'base64') : body;
    try {
      const verified = await verifyWebhook(rawBody, event.headers, secret);
      await onEvent(verified);
      return { statusCode: 204 };
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      return { statusCode: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: err.code }) };
    }
  };
}
