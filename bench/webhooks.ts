import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { startDynamoDb } from '../infra/local/dynamodb.js';
import { resetConfig } from '../shared/config/config.js';
import { systemClock } from '../shared/domain/clock.js';
import { resetDb } from '../shared/store/client.js';
import { outboxEvent, outboxPutItem } from '../shared/store/outbox.js';
import { transactWrite } from '../shared/store/transact.js';
import { handleWebhookMessage } from '../shared/usecases/webhooks/deliver.js';
import { dynamoWebhookRepositories } from '../shared/store/webhooks/index.js';
import { createSettings } from '../shared/usecases/webhooks/create-settings.js';
import type { DeliveryQueue, SecretBox, WebhookPorts } from '../shared/usecases/webhooks/ports.js';
import { createHttpSender } from '../shared/webhooks/http-sender.js';

/**
 * Webhook delivery on loopback: each event is committed as an outbox item (DynamoDB Local), handed to the
 * delivery worker's use case as the event router forwards it, planned, signed and posted to a receiver on
 * 127.0.0.1 that answers 200. Commit-to-receiver latency runs from the outbox commit to the request's arrival.
 * Queue hops run in process (no SQS server), so the figure is the gateway's own work plus the table.
 */
export interface WebhookBench {
  readonly deliveriesPerSecond: number;
  readonly p99Ms: number;
}

/** Secrets are sealed by KMS in production; the decrypted-secret cache makes that one call per tenant. */
const plainBox: SecretBox = { encrypt: async (p) => p, decrypt: async (c) => c };

export async function benchWebhooks({ events = 1000, concurrency = 16 }: { events?: number; concurrency?: number } = {}): Promise<WebhookBench> {
  const local = await startDynamoDb({ dbPath: null });
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.set(String(req.headers['webhook-id']), performance.now());
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    await local.ensureTable('gateway-bench');
    Object.assign(process.env, {
      TABLE_NAME: 'gateway-bench',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: local.url,
      ALLOW_LOOPBACK_CALLBACKS: 'true',
      STAGE: 'local',
    });
    resetConfig();
    resetDb();
    const pending: Promise<unknown>[] = [];
    const queue: DeliveryQueue = {
      async send(messages) {
        for (const m of messages) pending.push(handleWebhookMessage(m.body, deps));
      },
    };
    const callbacks = { allowLoopback: true };
    const deps: WebhookPorts = {
      ...dynamoWebhookRepositories,
      clock: systemClock,
      deliveryQueue: queue,
      webhookSender: createHttpSender({ policy: callbacks }),
      webhookSecrets: plainBox,
      callbacks,
    };
    const tenantId = randomUUID();
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await createSettings({ tenantId, credential: 'bench' }, { callback_url: url }, new Date(), deps);

    const committed = new Map<string, number>();
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < events) {
        const i = next++;
        const event = outboxEvent(tenantId, 'payment_status_update', {
          transaction_id: randomUUID(),
          status: 'completed',
          previous_status: 'confirmed',
          order_id: `o-${i}`,
        });
        await transactWrite([outboxPutItem(event)]);
        committed.set(event.eventId, performance.now());
        const body = JSON.stringify({ event_id: event.eventId, tenant_id: tenantId, type: event.type, occurred_at: event.occurredAt, payload: event.payload });
        await handleWebhookMessage(body, deps);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    while (pending.length > 0) await Promise.all(pending.splice(0));
    const seconds = (performance.now() - started) / 1000;
    const latencies = [...committed].map(([id, at]) => (arrivals.get(id) ?? Number.NaN) - at).sort((a, b) => a - b);
    if (latencies.some(Number.isNaN)) throw new Error('an event never reached the receiver');
    return { deliveriesPerSecond: events / seconds, p99Ms: latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)] ?? 0 };
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    resetDb();
    await local.close();
  }
}
