import { config } from '../../config/config.js';
import type { CurrencyDefinition, NetworkCode } from '../../domain/currencies.js';
import { contractAddress, contractEnvironmentFor, findCurrency } from '../../domain/currencies.js';

/**
 * The catalogue as configured for this deployment: which currencies are switched off (`DISABLED_CURRENCIES`)
 * and which token contracts apply (the stage's environment, overridden by `TOKEN_CONTRACTS`, which the local
 * stack fills with the addresses of the test tokens it deployed).
 */
export function disabledCurrencies(): ReadonlySet<string> {
  return new Set(config().DISABLED_CURRENCIES);
}

export function tokenContract(currency: CurrencyDefinition | string): string | null {
  const definition = typeof currency === 'string' ? findCurrency(currency) : currency;
  if (!definition) return null;
  const cfg = config();
  return contractAddress(definition, contractEnvironmentFor(cfg.STAGE), cfg.TOKEN_CONTRACTS);
}

/** RPC endpoint of a network from configuration (`EVM_RPC_URLS`), or null when none is configured. */
export function rpcUrl(network: NetworkCode | string): string | null {
  return config().EVM_RPC_URLS[network] ?? null;
}
