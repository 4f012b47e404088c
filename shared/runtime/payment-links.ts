import type { Config } from '../config/config.js';
import { config, platformLimits } from '../config/config.js';
import { withPlatformLimits } from '../domain/tenant.js';
import { dynamoPaymentLinks } from '../store/payment-links.js';
import { dynamoTenants } from '../store/tenants.js';
import { linkCompletions } from '../usecases/payment-links/completion.js';
import type { PaymentLinksDeps } from '../usecases/payment-links/ports.js';
import type { PaymentsDeps } from '../usecases/payments/ports.js';
import { paymentsRuntime } from './payments.js';

/** The payment-link use cases wired from configuration: the DynamoDB links, the payment creation's ports, the tenants. */
export function paymentLinksRuntime(cfg: Config = config()): PaymentLinksDeps {
  return {
    links: dynamoPaymentLinks,
    payments: paymentsRuntime(cfg),
    tenants: { get: async (tenantId) => ((t) => t && withPlatformLimits(t, platformLimits(cfg)))(await dynamoTenants.get(tenantId)) },
    settings: { publicBaseUrl: cfg.PUBLIC_BASE_URL ?? null, allowLoopbackUrls: cfg.ALLOW_LOOPBACK_CALLBACKS },
  };
}

/** The completions of payments that links opened, for the workers that complete payments (the scanner, the chain results). */
export const linkCompletionsRuntime = (): NonNullable<PaymentsDeps['linkCompletion']> => linkCompletions(dynamoPaymentLinks);
