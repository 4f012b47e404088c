import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WebhookEvent } from '@gateway/client';
import express from 'express';
import { envelopeA, envelopeB } from '../../../shared/domain/webhooks.js';
import { newWebhookSecret, standardSignature, xSignature } from '../../../shared/usecases/webhooks/signing.js';
import { apiEvent } from '../../unit/http/event.js';
import { gatewayWebhook, webhookApp } from './servers/express.js';
import { webhookHandler } from './servers/lambda.js';
import { webhookServer } from './servers/node-http.js';
import { apiGatewayFront, listen, post } from './support.js';
import type { Running } from './support.js';

/**
 * The webhook-receiving recipes of docs/client.md, each a real server on 127.0.0.1 verifying with `verifyWebhook`
 * from '@gateway/client': deliveries signed by the gateway's own signing code, in both styles (`X-Signature` alone,
 * and the Standard Webhooks headers alone), are accepted and their events handed on; a tampered body is refused.
 */

type Event = WebhookEvent;
type OnEvent = (event: Event) => void;

const RECIPES: ReadonlyArray<readonly [string, (secret: string | string[], onEvent: OnEvent) => Server]> = [
  ['Express (express.raw on the route)', (secret, onEvent) => createServer(webhookApp(secret, onEvent))],
  ['Lambda behind API Gateway', (secret, onEvent) => apiGatewayFront(webhookHandler(secret, onEvent))],
  ['plain node:http', (secret, onEvent) => webhookServer(secret, onEvent)],
];

const paymentData = (id: string, status: string, previous: string | null) => ({
  transaction_id: id,
  status,
  previous_status: previous,
  pay_amount: '25.10',
  pay_currency: 'USDTPOLYGON',
  price_amount: '23',
  price_currency: 'EUR',
  confirmations: 12,
  flags: [],
  callback_url: null,
  description: 'Café crème x2, 23 € (order 17)',
});

/** An envelope A delivery signed as variant A is: `X-Signature` only. */
function xSigned(secret: string, id = randomUUID()): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(envelopeA('payment_status_update', paymentData(id, 'completed', 'sending'), new Date().toISOString()));
  return { body, headers: { 'X-Signature': xSignature(secret, body) } };
}

/** An envelope B delivery with the Standard Webhooks headers only. */
function standardSigned(secret: string, id = randomUUID(), at = new Date()): { body: string; headers: Record<string, string> } {
  const webhookId = `payment:${id}:payment.completed`;
  const body = JSON.stringify(envelopeB(webhookId, 'payment.completed', at.toISOString(), paymentData(id, 'completed', 'sending')));
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    body,
    headers: { 'webhook-id': webhookId, 'webhook-timestamp': String(timestamp), 'webhook-signature': standardSignature(secret, webhookId, timestamp, body) },
  };
}

describe.each(RECIPES)('%s', (_name, make) => {
  const secret = newWebhookSecret();
  const previous = newWebhookSecret();
  const handed: Event[] = [];
  let running: Running;

  beforeAll(async () => {
    running = await listen(make([secret, previous], (event) => void handed.push(event)));
  });
  afterAll(() => running?.close());
  beforeEach(() => {
    handed.length = 0;
  });

  it('accepts a delivery signed with X-Signature and hands on its event, typed by its name', async () => {
    const id = randomUUID();
    const { body, headers } = xSigned(secret, id);
    const answer = await post(running.url, headers, body);
    expect(answer.status).toBe(204);
    expect(handed).toHaveLength(1);
    const event = handed[0] as Event;
    expect(event).toEqual(JSON.parse(body));
    if (event.event !== 'payment_status_update') throw new Error(`not payment_status_update: ${event.event}`);
    expect([event.data.transaction_id, event.data.status, event.data.pay_amount]).toEqual([id, 'completed', '25.10']);
  });

  it('accepts a delivery signed with the Standard Webhooks headers, with the secret being rotated out too', async () => {
    const id = randomUUID();
    for (const key of [secret, previous]) {
      const { body, headers } = standardSigned(key, id);
      expect((await post(running.url, headers, body)).status).toBe(204);
    }
    expect(handed.map((e) => e.event)).toEqual(['payment.completed', 'payment.completed']);
    const event = handed[0] as Event;
    if (event.event !== 'payment.completed') throw new Error(`not payment.completed: ${event.event}`);
    expect([event.id, event.data.transaction_id, event.data.description]).toEqual([`payment:${id}:payment.completed`, id, 'Café crème x2, 23 € (order 17)']);
  });

  it('refuses a tampered body, a wrong secret, a delivery without a signature and one too old, handing nothing on', async () => {
    const x = xSigned(secret);
    const s = standardSigned(secret);
    const old = standardSigned(secret, randomUUID(), new Date(Date.now() - 3_600_000));
    const tampered = (body: string) => body.replace('"25.10"', '"2510"');
    expect(tampered(x.body)).not.toBe(x.body);
    const refusals = [
      await post(running.url, x.headers, tampered(x.body)),
      await post(running.url, s.headers, tampered(s.body)),
      await post(running.url, xSigned(newWebhookSecret()).headers, x.body),
      await post(running.url, {}, x.body),
      await post(running.url, old.headers, old.body),
    ];
    expect(refusals.map((r) => [r.status, r.body?.error])).toEqual([
      [400, 'no_matching_signature'],
      [400, 'no_matching_signature'],
      [400, 'no_matching_signature'],
      [400, 'missing_header'],
      [400, 'timestamp_too_old'],
    ]);
    expect(handed).toEqual([]);
  });
});

describe('Express with a JSON parser ahead of the webhook route', () => {
  it('answers body_was_parsed: the parsed and re-serialised body is not what was signed', async () => {
    const secret = newWebhookSecret();
    const handed: Event[] = [];
    const app = express();
    app.use(express.json());
    app.post(
      '/webhooks/gateway',
      gatewayWebhook(secret, (event) => void handed.push(event)),
    );
    const running = await listen(createServer(app));
    try {
      const { body, headers } = xSigned(secret);
      expect(await post(running.url, headers, body)).toEqual({ status: 400, body: { error: 'body_was_parsed' } });
      expect(handed).toEqual([]);
    } finally {
      await running.close();
    }
  });
});

describe('the Lambda handler, invoked with API Gateway events', () => {
  it.each([
    ['X-Signature', xSigned],
    ['Standard Webhooks', standardSigned],
  ])('verifies a body passed as text and one passed base64 (isBase64Encoded), and refuses a base64 body left encoded (%s)', async (_style, sign) => {
    const secret = newWebhookSecret();
    const handed: Event[] = [];
    const handler = webhookHandler(secret, (event) => void handed.push(event));
    const { body, headers } = sign(secret);
    const event = (base64: boolean) => apiEvent('POST', '/webhooks/gateway', { body, base64, headers: { 'content-type': 'application/json', ...headers } });

    expect(await handler(event(false))).toEqual({ statusCode: 204 });
    expect(await handler(event(true))).toEqual({ statusCode: 204 });
    // A handler that forgets isBase64Encoded verifies the base64 text, not the body.
    const forgotten = { ...event(true), isBase64Encoded: false };
    expect(await handler(forgotten)).toMatchObject({ statusCode: 400, body: JSON.stringify({ error: 'no_matching_signature' }) });
    expect(handed).toEqual([JSON.parse(body), JSON.parse(body)]);
  });
});

it('docs/client.md shows each recipe as it is tested', () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const doc = readFileSync(join(here, '..', '..', '..', 'docs', 'client.md'), 'utf8');
  for (const file of ['express.ts', 'lambda.ts', 'node-http.ts']) {
    const code = readFileSync(join(here, 'servers', file), 'utf8').trimEnd();
    expect({ file, shown: doc.includes(`\`\`\`ts\n${code}\n\`\`\``) }).toEqual({ file, shown: true });
  }
});
