import { bytesToHex } from '@noble/hashes/utils.js';
import { dynamoCustodyDeposits } from '../store/custody.js';
import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { depositAddress as btcDepositAddress, depositTag } from '../chain/btc/p2wsh.js';
import { systemClock } from '../domain/clock.js';
import type { CurrencyDefinition } from '../domain/currencies.js';
import { NETWORKS } from '../domain/currencies.js';
import { dynamoPayments } from '../store/payments.js';
import { subscriptionCallInItem } from '../store/subscription-call-in.js';
import { refundedTotal } from '../store/refunds.js';
import { dynamoWalletDirectory } from '../store/wallets.js';
import { dynamoScanCursors } from '../store/scanner.js';
import type { ScannerDeps } from '../usecases/scanner/scan.js';
import type { DepositAddressSource, PaymentSettings, PaymentsDeps, TokenContracts } from '../usecases/payments/ports.js';
import type { WalletDirectory } from '../usecases/wallets/ports.js';
import { btcHotPublicKey } from './btc.js';
import { factoryAddresses } from './deposit-addresses.js';
import { servedNetworks, tokenContract } from './currencies.js';
import { confirmationsPolicy } from './confirmations.js';
import { ratesRuntime } from './rates.js';

/**
 * The payment use cases wired from configuration: the DynamoDB repository, deposit addresses from the CREATE2
 * factories of `FORWARDER_FACTORIES` (and `FORWARDER_IMPLEMENTATION_TRX` on TRON), the token contracts of the
 * stage (overridden by `TOKEN_CONTRACTS`), the payment settings and the system clock. A Lambda builds it once at
 * module scope.
 */

/** A directory where no wallet exists (deployments and tests without wallets). */
export const noWallets: WalletDirectory = { exists: async () => false };

/**
 * A Bitcoin deposit address (DESIGN section 12): the P2WSH output over `<tag> OP_DROP <hot key> OP_CHECKSIG`, the tag
 * `depositTag(tenant, payment)`, the key the hot wallet's KMS key (read once per process), the prefix the deployment's
 * `BTC_NETWORK`. The payment's `salt` is the tag (64 hex digits): what a coin of the address is spent with.
 */
async function btcAddressFor(cfg: Config, tenantId: string, paymentId: string): Promise<{ address: string; salt: string }> {
  const key = await btcHotPublicKey(cfg);
  return { address: btcDepositAddress(tenantId, paymentId, key, cfg.BTC_NETWORK).address, salt: bytesToHex(depositTag(tenantId, paymentId)) };
}

/**
 * A payment's deposit address: on Bitcoin from the hot wallet's key (`btcAddressFor`), elsewhere from the factories.
 * Custody accounts take theirs from the factories alone (`factoryAddresses`), so their Lambda carries no Bitcoin code.
 */
export function paymentAddresses(cfg: Config): DepositAddressSource {
  const factories = factoryAddresses(cfg);
  return {
    addressFor: (network, tenantId, paymentId) =>
      NETWORKS[network as keyof typeof NETWORKS]?.family === 'btc'
        ? btcAddressFor(cfg, tenantId, paymentId)
        : factories.addressFor(network, tenantId, paymentId),
  };
}

export function tokenContracts(cfg: Config): TokenContracts {
  return (currency: CurrencyDefinition) => tokenContract(currency, cfg);
}

export function paymentSettings(cfg: Config): PaymentSettings {
  return {
    underpaymentTolerancePercent: cfg.PAYMENT_UNDERPAY_TOLERANCE_PERCENT,
    lateWatchHours: cfg.PAYMENT_LATE_WATCH_HOURS,
    allowLoopbackCallbacks: cfg.ALLOW_LOOPBACK_CALLBACKS,
    publicBaseUrl: cfg.PUBLIC_BASE_URL ?? null,
    confirmationsFor: confirmationsPolicy(cfg),
  };
}

export function paymentsRuntime(cfg: Config = config()): PaymentsDeps {
  return {
    payments: dynamoPayments,
    // A subscription's payment calls its subscription in when it completes (issue 30).
    subscriptionCallIn: subscriptionCallInItem,
    rates: ratesRuntime(cfg),
    wallets: dynamoWalletDirectory,
    addresses: paymentAddresses(cfg),
    contracts: tokenContracts(cfg),
    served: servedNetworks(cfg),
    settings: paymentSettings(cfg),
    clock: systemClock,
    refunded: refundedTotal,
  };
}

export function scannerRuntime(cfg: Config = config()): ScannerDeps {
  return { ...paymentsRuntime(cfg), cursors: dynamoScanCursors, custodyDeposits: dynamoCustodyDeposits };
}
