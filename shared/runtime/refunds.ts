import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { dynamoLedger } from '../store/ledger.js';
import { dynamoPayments } from '../store/payments.js';
import { dynamoRefunds } from '../store/refunds.js';
import { dynamoWithdrawals, withdrawalCreationItems } from '../store/withdrawals.js';
import type { Clock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import type { RefundRepository, RefundsDeps } from '../usecases/refunds/ports.js';
import type { PaymentsDeps } from '../usecases/payments/ports.js';
import { excessRefunds } from '../usecases/refunds/auto.js';
import { dynamoTenants } from '../store/tenants.js';
import { servedNetworks } from './currencies.js';
import { withdrawalFees } from './withdrawals.js';

/** The refund use cases wired from configuration: the DynamoDB repositories and ledger, the withdrawal network fees. */
export function refundsRuntime(cfg: Config = config()): RefundsDeps {
  return {
    refunds: dynamoRefunds,
    payouts: { get: dynamoWithdrawals.get, save: dynamoWithdrawals.save, creationItems: withdrawalCreationItems },
    payments: dynamoPayments,
    ledger: dynamoLedger,
    fees: withdrawalFees(cfg),
    served: servedNetworks(cfg),
    settings: { publicBaseUrl: cfg.PUBLIC_BASE_URL ?? null },
  };
}

/**
 * The refunds a completing payment opens with its credit (a tenant's `auto_refund_excess`), for the workers that
 * complete payments (the scanner's sweeps, the chain results).
 */
export function excessRefundsRuntime(cfg: Config = config()): NonNullable<PaymentsDeps['excessRefund']> {
  return excessRefunds({
    setting: async (tenantId) => (await dynamoTenants.get(tenantId))?.settings.auto_refund_excess ?? null,
    refunds: dynamoRefunds,
    fees: withdrawalFees(cfg),
    served: servedNetworks(cfg),
    publicBaseUrl: cfg.PUBLIC_BASE_URL ?? null,
  });
}

/** The claim expirer's deps (the payment-expirer's schedule runs it). */
export function refundClaimsRuntime(): { readonly refunds: RefundRepository; readonly clock: Clock } {
  return { refunds: dynamoRefunds, clock: systemClock };
}
