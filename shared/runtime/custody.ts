import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { dynamoLedger } from '../store/ledger.js';
import type { CustodyPorts, CustodyWithdrawalPorts } from '../usecases/custody/ports.js';
import { custodyAccountsRuntime } from './custody-accounts.js';
import { custodySyncRuntime } from './custody-sync.js';
import { custodyWithdrawalsRuntime } from './custody-withdrawals.js';

export { builtinProvider } from './custody-accounts.js';

/**
 * All of custody wired from configuration, for what runs the whole group in one process (the CLI, the local dev
 * scripts): the wiring of the custody Lambda (accounts, addresses, balances, transfers), of custody-sync (deposits,
 * chains) and of custody-withdrawals (withdrawals with their review) together. The ledger is the one DynamoDB ledger
 * that each of them reads a part of.
 */
export function custodyRuntime(cfg: Config = config()): CustodyPorts & CustodyWithdrawalPorts {
  return { ...custodyAccountsRuntime(cfg), ...custodySyncRuntime(cfg), ...custodyWithdrawalsRuntime(cfg), ledger: dynamoLedger };
}
