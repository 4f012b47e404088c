import { config, type Config } from '../config/config.js';
import type { CurrencyCode, CurrencyDefinition, NetworkCode, ServedNetworks } from '../domain/currencies.js';
import { contractAddress, contractEnvironmentFor, CURRENCY_LIST, findCurrency, NETWORKS } from '../domain/currencies.js';
import { dynamoLedger } from '../store/ledger.js';
import type { ListCurrenciesDeps } from '../usecases/currencies/ports.js';
import { ratesRuntime } from './rates.js';

/**
 * The catalogue as configured for this deployment: which token contracts apply (the stage's environment,
 * overridden by `TOKEN_CONTRACTS`, which the local stack fills with the addresses of the test tokens it deployed).
 * The currencies switched off (`DISABLED_CURRENCIES`) are read with the rates (`disabledCurrencies`,
 * shared/runtime/rates.ts), which every use case receives them with.
 */
export function tokenContract(currency: CurrencyDefinition | string, cfg: Config = config()): string | null {
  const definition = typeof currency === 'string' ? findCurrency(currency) : currency;
  if (!definition) return null;
  return contractAddress(definition, contractEnvironmentFor(cfg.STAGE), cfg.TOKEN_CONTRACTS);
}

/** RPC endpoint of a network from configuration (`EVM_RPC_URLS`), or null when none is configured. */
export function rpcUrl(network: NetworkCode | string, cfg: Config = config()): string | null {
  return cfg.EVM_RPC_URLS[network] ?? null;
}

/**
 * What this deployment serves, the one reading of the configuration every use case and worker shares:
 * - payments on a network reached by its chain (EVM: `EVM_RPC_URLS`; TRON: `TRON_API_URL`) with a forwarder
 *   factory (`FORWARDER_FACTORIES`; on TRON also `FORWARDER_IMPLEMENTATION_TRX`): deposit addresses and a scanner;
 * - withdrawals on a network reached by its chain with the hot wallet's key (`HOT_WALLET_KEY_ID`) to sign;
 * - withdrawals on Solana where `SOLANA_RPC_URL`, the USDTSOL mint and the fee payer's key (`SOLANA_FEE_PAYER_KEY_ID`)
 *   are configured: sent from a custody account's own address (shared/usecases/custody/solana-withdrawals.ts); the
 *   catalogue keeps USDTSOL off for the main account and wallets, whose funds are never at a Solana address;
 * - Bitcoin payments and withdrawals where its Esplora-compatible API (`BTC_API_URL`) and the hot wallet's key
 *   (`HOT_WALLET_KEY_ID`) are configured: every deposit address is a P2WSH output over that key
 *   (shared/chain/btc/p2wsh.ts), so the key is needed to take payments as well as to send;
 * - a token only where its contract is known (`tokenContract`);
 * - Bitcoin addresses of its network only (`BTC_NETWORK`).
 */
export function servedNetworks(cfg: Config = config()): ServedNetworks {
  const payments = new Set<NetworkCode>();
  const withdrawals = new Set<NetworkCode>();
  for (const n of Object.values(NETWORKS)) {
    if (n.family === 'btc') {
      if (cfg.BTC_API_URL && cfg.HOT_WALLET_KEY_ID) {
        payments.add(n.code);
        withdrawals.add(n.code);
      }
      continue;
    }
    const reached = n.family === 'evm' ? rpcUrl(n.code, cfg) !== null : n.family === 'tron' && cfg.TRON_API_URL !== undefined;
    if (!reached) continue;
    const factory = !!cfg.FORWARDER_FACTORIES[n.code] && (n.family !== 'tron' || !!cfg.FORWARDER_IMPLEMENTATION_TRX);
    if (factory) payments.add(n.code);
    if (cfg.HOT_WALLET_KEY_ID) withdrawals.add(n.code);
  }
  if (cfg.SOLANA_RPC_URL && cfg.SOLANA_FEE_PAYER_KEY_ID && tokenContract('USDTSOL', cfg) !== null) withdrawals.add('SOL');
  const tokens = new Set<CurrencyCode>(CURRENCY_LIST.filter((c) => !c.native && tokenContract(c, cfg) !== null).map((c) => c.code));
  return { payments, withdrawals, tokens, btcNetwork: cfg.BTC_NETWORK };
}

/** The currencies group: the ledger (withdrawable balances), the rates and what this deployment serves. */
export function currenciesRuntime(cfg: Config = config()): ListCurrenciesDeps {
  return { ledger: dynamoLedger, rates: ratesRuntime(cfg), served: servedNetworks(cfg) };
}
