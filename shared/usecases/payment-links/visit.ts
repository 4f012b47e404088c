import { ConflictError, GatewayError } from '../../domain/errors.js';
import type { LinkVisit, PaymentLinkState } from '../../domain/payment-links.js';
import { linkStatus, visitPrice } from '../../domain/payment-links.js';
import type { PaymentState } from '../../domain/payments.js';
import { canServe } from '../../domain/tenant.js';
import { createPayment } from '../payments/create-payment.js';
import type { PaymentLinksDeps } from './ports.js';

/**
 * A payer's visit to a link's page (issue 30): the link as the page shows it, and the payment a visit opens.
 */

/** The link a public page names; null when there is none (the page answers 404). */
export const readLinkPage = (slug: string, deps: Pick<PaymentLinksDeps, 'links'>): Promise<PaymentLinkState | null> => deps.links.bySlug(slug);

/**
 * Opens a fresh ordinary payment from an active link: the payment creation's own use case (`createPayment`: the price
 * in fiat at the rate of this moment, its own deposit address, the tenant's expiry and limits), carrying
 * `payment_link_id`, written with the link's payments-list entry and a check that the link is still open as read, in
 * ONE transaction. A link deactivated or filled meanwhile: 409 `invalid_state`, and no payment.
 */
export async function createPaymentFromLink(link: PaymentLinkState, visit: LinkVisit, now: Date, deps: PaymentLinksDeps): Promise<PaymentState> {
  const price = visitPrice(link, visit, now);
  const tenant = await deps.tenants.get(link.tenantId);
  if (!tenant || !canServe(tenant)) throw new ConflictError('The merchant is not taking payments.', { status: 'unavailable' });
  try {
    return await createPayment(
      {
        body: {
          price_amount: price,
          price_currency: link.priceCurrency,
          pay_currency: visit.currency,
          order_description: link.name,
          ...(link.successUrl === null ? {} : { success_url: link.successUrl }),
        },
        tenant,
        now,
        link: { id: link.id, items: (stored) => deps.links.openingItems(link, stored) },
      },
      deps.payments,
    );
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    // Refused by the link's check: it was deactivated or filled after it was read.
    const current = await deps.links.get(link.tenantId, link.id);
    const status = current ? linkStatus(current, now) : 'inactive';
    if (status !== 'active') throw new ConflictError(`The payment link is ${status}.`, { status });
    throw error;
  }
}
