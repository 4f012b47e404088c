import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { dynamoCustodyAccounts, dynamoCustodyPolicies } from '../store/custody.js';
import { dynamoCustodyRollingTotals } from '../store/custody-rolling.js';
import { dynamoLedger } from '../store/ledger.js';
import { dynamoWithdrawals } from '../store/withdrawals.js';
import type { CustodyWithdrawalPorts } from '../usecases/custody/ports.js';
import { servedNetworks } from './currencies.js';
import { ratesRuntime } from './rates.js';
import { withdrawalFees } from './withdrawals.js';

/**
 * The custody-withdrawals Lambda's wiring (functions/custody-withdrawals): the accounts, the withdrawals' repository,
 * their fees (the network fee table, TRON's activation check) and what this deployment sends, the ledger's balances,
 * the tenants' review policies with the accounts' rolling totals, and the rates the tenants' USD limits are read at.
 */
export function custodyWithdrawalsRuntime(cfg: Config = config()): CustodyWithdrawalPorts {
  return {
    accounts: dynamoCustodyAccounts,
    withdrawals: dynamoWithdrawals,
    ledger: dynamoLedger,
    fees: withdrawalFees(cfg),
    served: servedNetworks(cfg),
    policies: dynamoCustodyPolicies,
    rollingTotals: dynamoCustodyRollingTotals,
    rates: ratesRuntime(cfg),
    settings: { allowLoopbackCallbacks: cfg.ALLOW_LOOPBACK_CALLBACKS },
    clock: systemClock,
  };
}
