import type { QueueName } from '../../infra/definition.js';
import { DELIVERY_EVENTS, SUBSCRIPTION_EVENTS } from '../../shared/domain/webhooks.js';

/**
 * Which queues consume which event type. Every tenant-visible event goes to `webhook-delivery` (which
 * decides per tenant and subscription whether and where to deliver it); internal events name their own
 * consumers here as they appear (sweeps, transfers). A type with no route is dropped with a warning.
 */
/** Every event a tenant can hear of: the delivery events (6.1) and the subscription types (6.2) but `.all`. */
export const TENANT_VISIBLE_EVENTS: readonly string[] = [...DELIVERY_EVENTS, ...SUBSCRIPTION_EVENTS.filter((t) => !t.endsWith('.all'))];

const INTERNAL_ROUTES: Readonly<Record<string, readonly QueueName[]>> = {
  // Chain results reach the sweeper (functions/sweeper), which settles sweeps and withdrawals by purpose.
  // A new chain transaction is signed and broadcast by the chain-tx worker.
  'chain_tx.requested': ['transfers'],
  'chain_tx.confirmed': ['sweeps'],
  'chain_tx.failed': ['sweeps'],
};

export const EVENT_ROUTES: Readonly<Record<string, readonly QueueName[]>> = {
  ...Object.fromEntries(TENANT_VISIBLE_EVENTS.map((type) => [type, ['webhook-delivery'] as const])),
  ...INTERNAL_ROUTES,
};

export function queuesFor(type: string): readonly QueueName[] {
  return Object.hasOwn(EVENT_ROUTES, type) ? (EVENT_ROUTES[type] ?? []) : [];
}
