import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WORKER_FUNCTIONS } from '../../../infra/definition.js';
import { RETRY_LANE_TENANT_LIMIT } from '../../../shared/domain/webhooks.js';
import { webhooksRuntime } from '../../../shared/runtime/webhooks.js';
import { outboxEvent, outboxPutItem } from '../../../shared/store/outbox.js';
import { transactWrite } from '../../../shared/store/transact.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { createSubscription } from '../../../shared/usecases/webhooks/create-subscription.js';
import type { WebhookPorts } from '../../../shared/usecases/webhooks/ports.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { startReceiver, type Receiver, until } from './support.js';

/**
 * Issue 25, item 4: a slow receiver delays only its own tenant. On the local stack (DynamoDB Local, the SQS
 * server, event-router and both webhook lanes run by the local sources), tenant B's receiver never answers; B's
 * events are committed first, tenant A's after them. A's deliveries all arrive before any of B's attempts has
 * timed out (none is recorded yet), and B's first attempts are made on the retry lane with the full timeout, a few
 * at a time, their next attempts waiting on the retry lane's queue.
 */
let stack: TestStack;
let fast: Receiver;
let hanging: Server;
let hangingUrl: string;
const held: IncomingMessage[] = [];
let deps: WebhookPorts;

/** B's events: more than the first lane's five batches of ten hold at once. */
const B_EVENTS = 60;
const A_EVENTS = 10;

beforeAll(async () => {
  stack = await startTestStack(
    { http: false },
    {
      workers: WORKER_FUNCTIONS.filter((w) => ['event-router', 'webhook-delivery', 'webhook-retries'].includes(w.name)),
      stream: { pollIntervalMs: 100 },
    },
  );
  deps = webhooksRuntime();
  fast = await startReceiver(() => 200);
  // Reads each request and never answers.
  hanging = createServer((req) => {
    held.push(req);
    req.resume();
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  await stack?.stop();
  await fast?.close();
  hanging?.closeAllConnections();
  await new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
});

it('tenant A is delivered while tenant B hangs, and B is retried on the retry lane with the full timeout', async () => {
  const since = new Date(Date.now() - 60_000);
  const a = randomUUID();
  const b = randomUUID();
  await createSettings({ tenantId: a, credential: 'test' }, { callback_url: fast.url }, new Date(), deps);
  const sub = await createSubscription({ tenantId: b, credential: 'test' }, { url: hangingUrl, event_types: ['payment.all'] }, new Date(), deps);

  const bEvents = Array.from({ length: B_EVENTS }, (_, i) => outboxEvent(b, 'payment.completed', { transaction_id: `b-${i}`, status: 'completed' }));
  for (let i = 0; i < bEvents.length; i += 20) await transactWrite(bEvents.slice(i, i + 20).map(outboxPutItem));
  const aEvents = Array.from({ length: A_EVENTS }, (_, i) =>
    outboxEvent(a, 'payment_status_update', { transaction_id: `a-${i}`, status: 'completed', previous_status: 'confirmed' }),
  );
  await transactWrite(aEvents.map(outboxPutItem));

  const aIds = new Set(aEvents.map((e) => e.eventId));
  await until('A delivered', () => (fast.received.filter((r) => aIds.has(String(r.headers['webhook-id']))).length >= A_EVENTS ? true : undefined));
  // When A's last delivery arrived, B's receiver held requests, but not one of B's attempts had ended (timed out).
  const bAttemptsThen = (await deps.webhookAttempts.list(b, since, 200, null)).items;
  expect(held.length).toBeGreaterThan(0);
  expect(bAttemptsThen).toEqual([]);

  // B's first attempts end on the retry lane: each waited the full 10 s (the first lane never waits that long). The
  // retry lane makes at most RETRY_LANE_TENANT_LIMIT of them at once (the rest wait their turn on its queue), so
  // the first of them end together, about 10 s after they started.
  const bAttempts = await until(
    "B's first attempts recorded",
    async () => {
      const items = (await deps.webhookAttempts.list(b, since, 200, null)).items;
      return items.length >= RETRY_LANE_TENANT_LIMIT ? items : undefined;
    },
    60_000,
  );
  expect(new Set(bAttempts.map((x) => x.attempt))).toEqual(new Set([1]));
  expect(new Set(bAttempts.map((x) => x.error))).toEqual(new Set(['timeout after 10000 ms']));
  // Their second attempts wait on the retry lane's queue (due a minute later), not on the first lane's.
  const delayed = async (queue: string) =>
    Number(
      (
        await stack.sqs.client.send(
          new GetQueueAttributesCommand({ QueueUrl: stack.stackJson.queueUrls[queue], AttributeNames: ['ApproximateNumberOfMessagesDelayed'] }),
        )
      ).Attributes?.ApproximateNumberOfMessagesDelayed ?? 0,
    );
  expect(await until('the retries enqueued', async () => ((await delayed('webhook-retries')) >= bAttempts.length ? true : undefined), 10_000)).toBe(true);
  expect(await delayed('webhook-delivery')).toBe(0);
  // B's subscription is marked slow; A's deliveries each succeeded at the first attempt.
  expect((await deps.webhookSubscriptions.get(b, sub.id))?.slowUntil).toEqual(expect.any(String));
  const aAttempts = (await deps.webhookAttempts.list(a, since, 200, null)).items;
  expect(aAttempts.map((x) => [x.attempt, x.succeeded])).toEqual(Array.from({ length: A_EVENTS }, () => [1, true]));
}, 180_000);
