import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { depositAddress, forwarderImplementationAddress, saltFor } from '../chain/evm/create2.js';
import { tronDepositAddress } from '../chain/tron/create2.js';
import { systemClock } from '../domain/clock.js';
import type { CurrencyDefinition } from '../domain/currencies.js';
import { contractAddress, contractEnvironmentFor, NETWORKS } from '../domain/currencies.js';
import { dynamoPayments } from '../store/payments.js';
import { dynamoWalletDirectory } from '../store/wallets.js';
import { dynamoScanCursors } from '../store/scanner.js';
import type { DepositAddressSource, PaymentSettings, PaymentsDeps, ScannerDeps, TokenContracts, WalletDirectory } from '../usecases/payments/ports.js';
import { ratesRuntime } from './rates.js';

/**
 * The payment use cases wired from configuration: the DynamoDB repository, deposit addresses from the CREATE2
 * factories of `FORWARDER_FACTORIES` (and `FORWARDER_IMPLEMENTATION_TRX` on TRON), the token contracts of the
 * stage (overridden by `TOKEN_CONTRACTS`), the payment settings and the system clock. A Lambda builds it once at
 * module scope.
 */

/** A directory where no wallet exists (deployments and tests without wallets). */
export const noWallets: WalletDirectory = { exists: async () => false };

/** The forwarder factory of a network in this deployment. */
export const factoryOf = (cfg: Config, network: string): string | undefined => cfg.FORWARDER_FACTORIES[network] || undefined;

/** EVM networks with a factory: CREATE2 forwarders, the same salt on every network. */
export function evmFactoryAddresses(cfg: Config): DepositAddressSource {
  return {
    supports: (network) => NETWORKS[network as keyof typeof NETWORKS]?.family === 'evm' && factoryOf(cfg, network) !== undefined,
    addressFor(network, tenantId, paymentId) {
      const factory = factoryOf(cfg, network);
      if (!factory) throw new Error(`No forwarder factory configured for ${network}`);
      const salt = saltFor(tenantId, paymentId);
      return { address: depositAddress(factory, forwarderImplementationAddress(factory), salt), salt };
    },
  };
}

/** TRON: the TRX factory and `FORWARDER_IMPLEMENTATION_TRX` (base58), TRON's CREATE2 preimage (0x41). */
export function tronFactoryAddresses(cfg: Config): DepositAddressSource {
  return {
    supports: (network) => network === 'TRX' && !!factoryOf(cfg, 'TRX') && !!cfg.FORWARDER_IMPLEMENTATION_TRX,
    addressFor(network, tenantId, paymentId) {
      const factory = factoryOf(cfg, 'TRX');
      const implementation = cfg.FORWARDER_IMPLEMENTATION_TRX;
      if (network !== 'TRX' || !factory || !implementation) throw new Error(`No TRON forwarder factory configured for ${network}`);
      const salt = saltFor(tenantId, paymentId);
      return { address: tronDepositAddress(factory, implementation, salt), salt };
    },
  };
}

/** The first source that supports the network. */
export function anyOf(...sources: DepositAddressSource[]): DepositAddressSource {
  const pick = (network: string) => sources.find((s) => s.supports(network));
  return {
    supports: (network) => pick(network) !== undefined,
    addressFor(network, tenantId, paymentId) {
      const source = pick(network);
      if (!source) throw new Error(`No deposit addresses for ${network}`);
      return source.addressFor(network, tenantId, paymentId);
    },
  };
}

export function tokenContracts(cfg: Config): TokenContracts {
  const environment = contractEnvironmentFor(cfg.STAGE);
  return (currency: CurrencyDefinition) => contractAddress(currency, environment, cfg.TOKEN_CONTRACTS);
}

export function paymentSettings(cfg: Config): PaymentSettings {
  const local = cfg.STAGE === 'local';
  const override = cfg.PAYMENT_CONFIRMATIONS;
  return {
    underpaymentTolerancePercent: cfg.PAYMENT_UNDERPAY_TOLERANCE_PERCENT,
    lateWatchHours: cfg.PAYMENT_LATE_WATCH_HOURS,
    allowLoopbackCallbacks: cfg.ALLOW_LOOPBACK_CALLBACKS,
    publicBaseUrl: cfg.PUBLIC_BASE_URL ?? null,
    confirmationsFor: (c) => override ?? (local ? Math.min(c.confirmations, 2) : c.confirmations),
  };
}

export function paymentsRuntime(cfg: Config = config()): PaymentsDeps {
  return {
    payments: dynamoPayments,
    rates: ratesRuntime(cfg),
    wallets: dynamoWalletDirectory,
    addresses: anyOf(evmFactoryAddresses(cfg), tronFactoryAddresses(cfg)),
    contracts: tokenContracts(cfg),
    settings: paymentSettings(cfg),
    clock: systemClock,
  };
}

export function scannerRuntime(cfg: Config = config()): ScannerDeps {
  return { ...paymentsRuntime(cfg), cursors: dynamoScanCursors };
}
