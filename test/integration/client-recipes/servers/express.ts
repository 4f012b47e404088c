import express from 'express';
import type { Express, RequestHandler } from 'express';
import { verifyWebhook, WebhookVerificationError } from '@gateway/client';
import type { WebhookEvent } from '@gateway/client';

/**
 * The route's handler: `req.body` must be the raw bytes (`express.raw`), never a parsed object. A verified event is
 * handed on and answered 204; a delivery that does not verify is answered 400 with the reason.
 */
export function gatewayWebhook(secret: string | string[], onEvent: (event: WebhookEvent) => Promise<void> | void): RequestHandler {
  return async (req, res) => {
    try {
      const event = await verifyWebhook(req.body, req.headers, secret);
      await onEvent(event);
      res.sendStatus(204);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      res.status(400).json({ error: err.code });
    }
  };
}

/** An app receiving the gateway's webhooks at POST /webhooks/gateway, the body kept raw on that route only. */
export function webhookApp(secret: string | string[], onEvent: (event: WebhookEvent) => Promise<void> | void): Express {
  const app = express();
  app.post('/webhooks/gateway', express.raw({ type: 'application/json' }), gatewayWebhook(secret, onEvent));
  // Other routes may parse JSON: a parser registered after the webhook route never sees its body.
  app.use(express.json());
  return app;
}
