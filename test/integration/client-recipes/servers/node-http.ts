import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@gateway/client';
import type { WebhookEvent } from '@gateway/client';

/**
 * A plain `node:http` server receiving the gateway's webhooks at POST /webhooks/gateway. The body is collected as
 * bytes and joined once (`body += chunk` would split a multi-byte character across two chunks).
 */
export function webhookServer(secret: string | string[], onEvent: (event: WebhookEvent) => Promise<void> | void): Server {
  return createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks/gateway') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const event = await verifyWebhook(Buffer.concat(chunks), req.headers, secret);
      await onEvent(event);
      res.writeHead(204).end();
    } catch (err) {
      const code = err instanceof WebhookVerificationError ? err.code : null;
      res.writeHead(code ? 400 : 500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: code ?? 'internal' }));
    }
  });
}
