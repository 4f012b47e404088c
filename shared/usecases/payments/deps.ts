import { config } from '../../config/config.js';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { NETWORKS } from '../../domain/currencies.js';
import type { Decimal } from '../../domain/money.js';
import { depositAddress, forwarderImplementationAddress, saltFor } from '../../chain/evm/create2.js';
import { tronDepositAddress } from '../../chain/tron/create2.js';
import { defaultRatesDeps } from '../rates/deps.js';
import type { RatesDeps } from '../rates/ports.js';

/**
 * What the payment use cases need from outside, as ports: rates, the wallet directory (wallets plug in
 * later), where deposit addresses come from (per network: the CREATE2 factory), and the clock.
 */

/** Looks a wallet up by its `wallet_id`. Until wallets exist every wallet_id is unknown. */
export interface WalletDirectory {
  exists(tenantId: string, walletId: string): Promise<boolean>;
}

export const noWallets: WalletDirectory = { exists: async () => false };

export interface DepositAddressSource {
  /** Networks for which deposit addresses can be made in this deployment. */
  supports(network: string): boolean;
  /** The single-use deposit address of a payment, with its CREATE2 salt. */
  addressFor(network: string, tenantId: string, paymentId: string): { address: string; salt: string };
}

/** The forwarder factory of a network (`FORWARDER_FACTORIES`); the local stack sets ETH's (and TRX's). */
export const factoryOf = (network: string): string | undefined => config().FORWARDER_FACTORIES[network] || undefined;

export const evmFactoryAddresses: DepositAddressSource = {
  supports: (network) => NETWORKS[network as keyof typeof NETWORKS]?.family === 'evm' && factoryOf(network) !== undefined,
  addressFor(network, tenantId, paymentId) {
    const factory = factoryOf(network);
    if (!factory) throw new Error(`No forwarder factory configured for ${network}`);
    const salt = saltFor(tenantId, paymentId);
    return { address: depositAddress(factory, forwarderImplementationAddress(factory), salt), salt };
  },
};

/**
 * TRON: the TRX factory of `FORWARDER_FACTORIES` and `FORWARDER_IMPLEMENTATION_TRX` (base58), TRON's CREATE2
 * preimage (0x41).
 */
export const tronFactoryAddresses: DepositAddressSource = {
  supports: (network) => network === 'TRX' && !!factoryOf('TRX') && !!config().FORWARDER_IMPLEMENTATION_TRX,
  addressFor(network, tenantId, paymentId) {
    const factory = factoryOf('TRX');
    const implementation = config().FORWARDER_IMPLEMENTATION_TRX;
    if (network !== 'TRX' || !factory || !implementation) throw new Error(`No TRON forwarder factory configured for ${network}`);
    const salt = saltFor(tenantId, paymentId);
    return { address: tronDepositAddress(factory, implementation, salt), salt };
  },
};

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

export interface PaymentSettings {
  /** Underpayment tolerance, percent of the amount ("0.5" accepts 99.5 %). */
  readonly underpaymentTolerancePercent: Decimal;
  /** Hours after expiry during which a deposit is still recorded and credited. */
  readonly lateWatchHours: number;
  /** Confirmations needed per currency; locally small. */
  confirmationsFor(currency: CurrencyDefinition): number;
}

export function settingsFromEnv(): PaymentSettings {
  const cfg = config();
  const local = cfg.STAGE === 'local';
  const override = cfg.PAYMENT_CONFIRMATIONS;
  return {
    underpaymentTolerancePercent: cfg.PAYMENT_UNDERPAY_TOLERANCE_PERCENT,
    lateWatchHours: cfg.PAYMENT_LATE_WATCH_HOURS,
    confirmationsFor: (c) => override ?? (local ? Math.min(c.confirmations, 2) : c.confirmations),
  };
}

export interface PaymentsDeps {
  readonly rates: RatesDeps;
  readonly wallets: WalletDirectory;
  readonly addresses: DepositAddressSource;
  readonly settings: PaymentSettings;
}

let cached: PaymentsDeps | undefined;

export function defaultPaymentsDeps(): PaymentsDeps {
  cached ??= { rates: defaultRatesDeps(), wallets: noWallets, addresses: anyOf(evmFactoryAddresses, tronFactoryAddresses), settings: settingsFromEnv() };
  return cached;
}

export function resetPaymentsDeps(): void {
  cached = undefined;
}
