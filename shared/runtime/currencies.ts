import { config, type Config } from '../config/config.js';
import type { CurrencyDefinition, NetworkCode } from '../domain/currencies.js';
import { contractAddress, contractEnvironmentFor, findCurrency } from '../domain/currencies.js';
import { dynamoLedger } from '../store/ledger.js';
import type { ListCurrenciesDeps } from '../usecases/currencies/ports.js';
import { ratesRuntime } from './rates.js';

/**
 * The catalogue as configured for this deployment: which currencies are switched off (`DISABLED_CURRENCIES`)
 * and which token contracts apply (the stage's environment, overridden by `TOKEN_CONTRACTS`, which the local
 * stack fills with the addresses of the test tokens it deployed).
 */
export function disabledCurrencies(cfg: Config = config()): ReadonlySet<string> {
  return new Set(cfg.DISABLED_CURRENCIES);
}

export function tokenContract(currency: CurrencyDefinition | string, cfg: Config = config()): string | null {
  const definition = typeof currency === 'string' ? findCurrency(currency) : currency;
  if (!definition) return null;
  return contractAddress(definition, contractEnvironmentFor(cfg.STAGE), cfg.TOKEN_CONTRACTS);
}

/** RPC endpoint of a network from configuration (`EVM_RPC_URLS`), or null when none is configured. */
export function rpcUrl(network: NetworkCode | string, cfg: Config = config()): string | null {
  return cfg.EVM_RPC_URLS[network] ?? null;
}

/** The currencies group: the ledger (withdrawable balances) and the rates. */
export function currenciesRuntime(cfg: Config = config()): ListCurrenciesDeps {
  return { ledger: dynamoLedger, rates: ratesRuntime(cfg) };
}
