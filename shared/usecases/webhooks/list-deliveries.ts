import { z } from 'zod';
import { DELIVERY_LOG_DAYS } from '../../domain/webhooks.js';
import type { WebhookPorts } from './ports.js';
import { attemptView } from './views.js';
import type { AttemptListView } from './views.js';

export const ListAttemptsInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(500).optional(),
});
export type ListAttemptsInput = z.infer<typeof ListAttemptsInput>;

/** GET /user/webhooks/deliveries/: delivery attempts of the last DELIVERY_LOG_DAYS, newest first. */
export async function listDeliveries(
  tenantId: string,
  input: ListAttemptsInput,
  now: Date,
  deps: Pick<WebhookPorts, 'webhookAttempts'>,
): Promise<AttemptListView> {
  const since = new Date(now.getTime() - DELIVERY_LOG_DAYS * 86400_000);
  const { items, next } = await deps.webhookAttempts.list(tenantId, since, input.limit, input.cursor ?? null);
  return { results: items.map(attemptView), next_cursor: next };
}
