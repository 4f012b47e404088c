import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { GatewayError } from '../../domain/errors.js';
import { isKnownEvent, isSuccessStatus, newDelivery } from '../../domain/webhooks.js';
import { processDelivery, variantADeliveryId } from './deliver.js';
import type { Actor, DeliveryPorts } from './ports.js';
import type { TestWebhookView } from './views.js';

export const TestWebhookInput = lazySchema(() => z.object({ event_type: z.string() }));
export type TestWebhookInput = z.infer<ReturnType<typeof TestWebhookInput>>;

const SAMPLE_DATA: Readonly<Record<string, Record<string, unknown>>> = {
  payment_status_update: {
    transaction_id: '00000000-0000-4000-8000-000000000000',
    status: 'completed',
    previous_status: 'confirmed',
    payment_type: 'full',
    order_id: 'test-order',
    price_amount: '10.00',
    price_currency: 'USD',
    pay_amount: '10.000000',
    pay_currency: 'USDTERC20',
    blockchain_address: '0x0000000000000000000000000000000000000000',
    transaction_hash: null,
    confirmations: 12,
    merchant_received_usd: '9.90',
    payment_history: [],
    metadata: { updated_at: '1970-01-01T00:00:00Z' },
  },
};

/** POST /user/webhooks/test/: one signed delivery of a sample event to the variant-A URL, through the same path. */
export async function sendTestWebhook(actor: Actor, input: TestWebhookInput, deps: DeliveryPorts): Promise<TestWebhookView> {
  if (!isKnownEvent(input.event_type)) {
    throw new GatewayError('invalid_event_types', `Unknown event type: ${input.event_type}.`, { event_type: [`Unknown event type: ${input.event_type}`] });
  }
  const settings = await deps.webhookSettings.get(actor.tenantId);
  if (!settings) throw new GatewayError('webhook_not_found', 'No webhook URL is configured: POST /user/webhooks/ first.');
  const now = deps.clock.now();
  const eventId = randomUUID();
  const data = { test: true, ...(SAMPLE_DATA[input.event_type] ?? {}) };
  const body = JSON.stringify({ event: input.event_type, data, timestamp: now.toISOString() });
  const deliveryId = variantADeliveryId(eventId);
  const destination = { kind: 'default', url: settings.url } as const;
  await deps.webhookDeliveries.create(
    newDelivery({ tenantId: actor.tenantId, deliveryId, eventId, eventType: input.event_type, webhookId: eventId, destination, body }, now),
    now,
  );
  const report = await processDelivery(
    { kind: 'webhook_delivery', v: 1, tenant_id: actor.tenantId, delivery_id: deliveryId, attempt: 1, due_at: now.toISOString(), hop: 0 },
    deps,
  );
  return {
    delivered: report.answer ? isSuccessStatus(report.answer.statusCode) : false,
    delivery_id: deliveryId,
    webhook_id: eventId,
    url: settings.url,
    status_code: report.answer?.statusCode ?? null,
    latency_ms: report.answer?.latencyMs ?? null,
    error: report.answer?.error ?? null,
  };
}
