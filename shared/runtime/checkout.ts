import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { contractAddress, contractEnvironmentFor } from '../domain/currencies.js';
import { clientRateLimiter } from '../http/client-rate-limit.js';
import type { ClientRateLimiter } from '../http/client-rate-limit.js';
import { dynamoCheckouts } from '../store/checkout.js';
import type { CheckoutDeps } from '../usecases/checkout/ports.js';
import { confirmationsPolicy } from './confirmations.js';

export interface CheckoutRuntime extends CheckoutDeps {
  readonly limiter: ClientRateLimiter;
}

/**
 * The checkout Lambda's wiring: table reads only, the stage's token contracts (for payment URIs) and the
 * per-address request limit. Nothing here can write, sign or decrypt.
 */
export function checkoutRuntime(cfg: Config = config()): CheckoutRuntime {
  const environment = contractEnvironmentFor(cfg.STAGE);
  return {
    checkouts: dynamoCheckouts,
    contracts: (currency) => contractAddress(currency, environment, cfg.TOKEN_CONTRACTS),
    environment,
    confirmationsFor: confirmationsPolicy(cfg),
    limiter: clientRateLimiter(cfg.CHECKOUT_REQUESTS_PER_MINUTE),
  };
}
