import type { PaymentChange, PaymentState } from '../../domain/payments.js';
import type { WriteItem } from '../ports.js';
import type { PaymentRepository } from '../payments/ports.js';
import type { SubscriptionRepository } from './ports.js';

/**
 * The payment repository of a worker that completes payments, wrapped so that a subscription's payment calls its
 * subscription in within the transaction that completes it (`SubscriptionRepository.callInItem`).
 */
export function callingIn(payments: PaymentRepository, subscriptions: Pick<SubscriptionRepository, 'callInItem'>): PaymentRepository {
  return {
    ...payments,
    save(previous: PaymentState, change: PaymentChange, now: Date, alsoWrite: readonly WriteItem[] = []) {
      const sub = change.state.subscription;
      const completes = sub !== undefined && change.state.status === 'completed' && previous.status !== 'completed';
      return payments.save(previous, change, now, completes ? [...alsoWrite, subscriptions.callInItem(change.state.tenantId, sub.id, now)] : alsoWrite);
    },
  };
}
