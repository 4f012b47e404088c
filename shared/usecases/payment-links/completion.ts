import type { PaymentState } from '../../domain/payments.js';
import { completionCounts } from '../../domain/payment-links.js';
import type { LinkCompletion } from '../payments/ports.js';
import type { PaymentLinkRepository } from './ports.js';

/**
 * The `linkCompletion` port of the payment completion (shared/usecases/payments/settle.ts): for a payment a link
 * opened, the link as it is now decides whether the completion is counted (its count below the limit) or over the
 * limit, and the write that moves the matching counter, conditioned on that same reading, commits with the payment.
 * A reading made stale by another completion fails the condition; the completion reads the link again.
 */
export function linkCompletions(links: Pick<PaymentLinkRepository, 'get' | 'completionItem'>): (payment: PaymentState) => Promise<LinkCompletion | null> {
  return async (payment) => {
    if (payment.paymentLinkId === undefined) return null;
    const link = await links.get(payment.tenantId, payment.paymentLinkId);
    // A link never goes away; a payment naming none is completed as any payment.
    if (!link) return null;
    const counted = completionCounts(link);
    return { overLimit: !counted, items: [links.completionItem(link, counted)] };
  };
}
