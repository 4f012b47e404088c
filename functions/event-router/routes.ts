import type { QueueName } from '../../infra/definition.js';

/**
 * Which queues consume which event type. Every tenant-visible event goes to `webhook-delivery` (which
 * decides per tenant and subscription whether and where to deliver it); internal events name their own
 * consumers here as they appear (sweeps, transfers). A type with no route is dropped with a warning.
 */
export const TENANT_VISIBLE_EVENTS = [
  // Envelope A (section 6.1)
  'payment_status_update',
  'deposit_received',
  'deposit_merged',
  'withdrawal_status_update',
  // Envelope B subscription types (section 6.2); the `.all` types are subscription filters, not events.
  'payment.created',
  'payment.processing',
  'payment.completed',
  'payment.failed',
  'payment.expired',
  'withdrawal.created',
  'withdrawal.approved',
  'withdrawal.processing',
  'withdrawal.completed',
  'withdrawal.failed',
  'withdrawal.cancelled',
  'withdrawal.status_changed',
  'wallet.created',
  'wallet.balance_changed',
  'security.login_attempt',
  'security.settings_changed',
] as const;

const INTERNAL_ROUTES: Readonly<Record<string, readonly QueueName[]>> = {
  // Sweep results reach the sweeper (functions/sweeper), which ignores other purposes.
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
