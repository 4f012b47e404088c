import type { CheckoutView } from '../../domain/checkout.js';
import { CHECKOUT_ID, checkoutView } from '../../domain/checkout.js';
import { findCurrency, NETWORKS } from '../../domain/currencies.js';
import { NotFoundError } from '../../domain/errors.js';
import type { CheckoutDeps } from './ports.js';

/** The checkout view of the payment `checkoutId` names; NotFoundError for an id of the wrong form or naming nothing. */
export async function readCheckout(checkoutId: string, deps: CheckoutDeps): Promise<CheckoutView> {
  if (!CHECKOUT_ID.test(checkoutId)) throw new NotFoundError('No such checkout.');
  const page = await deps.checkouts.find(checkoutId);
  const currency = page ? findCurrency(page.payment.currency) : undefined;
  if (!page || !currency) throw new NotFoundError('No such checkout.');
  return checkoutView(page.payment, {
    merchantName: page.merchantName,
    currency,
    chainId: NETWORKS[currency.network].chainId[deps.environment],
    tokenContract: deps.contracts(currency),
    confirmationsRequired: deps.confirmationsFor(currency),
  });
}
