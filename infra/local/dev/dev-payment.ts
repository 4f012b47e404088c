import { NotFoundError, ValidationError } from '../../../shared/domain/errors.js';
import { config } from '../../../shared/config/config.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { getTenant } from '../../../shared/store/tenants.js';
import { CreatePaymentBody, createPayment } from '../../../shared/usecases/payments/create-payment.js';
import { createRecord, paymentLinks } from '../../../shared/usecases/payments/present.js';
import { allTenants } from '../../../shared/usecases/tenants/manage-tenants.js';

/**
 * `npm run gateway -- dev payment --amount 25 --currency USDTPOLYGON [--tenant ID] [--description TEXT]`: a payment
 * made through the API's own use case (the tenant's settings, rates and limits apply), for a tenant without a token
 * at hand: the newest tenant unless one is named. Prints its record with `checkout_url`; `npm start` prints the
 * same URL when the payment's `payment.created` passes the event router. Pay it with `dev pay`.
 */
export interface DevPaymentInput {
  readonly amount: string;
  readonly currency: string;
  readonly tenantId?: string;
  readonly description?: string;
  readonly successUrl?: string;
}

async function tenantFor(tenantId: string | undefined) {
  if (tenantId !== undefined) {
    const tenant = await getTenant(tenantId);
    if (!tenant) throw new NotFoundError(`No tenant ${tenantId}.`);
    return tenant;
  }
  const newest = (await allTenants(tenantsRuntime())).sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
  if (!newest) throw ValidationError.field('tenant', 'No tenant yet: make one with `tenant create --name NAME`.');
  return newest;
}

export async function devPayment(input: DevPaymentInput): Promise<ReturnType<typeof createRecord>> {
  const tenant = await tenantFor(input.tenantId);
  const body = CreatePaymentBody().parse({
    amount: input.amount,
    currency: input.currency,
    ...(input.description !== undefined ? { order_description: input.description } : {}),
    ...(input.successUrl !== undefined ? { success_url: input.successUrl } : {}),
  });
  const payment = await createPayment({ body, tenant, now: new Date() }, paymentsRuntime());
  return createRecord(payment, paymentLinks(config().PUBLIC_BASE_URL ?? 'http://127.0.0.1:3000'));
}
