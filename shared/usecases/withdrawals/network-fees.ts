import { config } from '../../config/config.js';
import type { NetworkFeeTable } from '../../domain/withdrawals.js';
import { networkFeeTable } from '../../domain/withdrawals.js';

/**
 * What the withdrawal use cases need to price a withdrawal: the network fee table in force, i.e. the
 * domain's defaults with the operator's `WITHDRAWAL_NETWORK_FEES` overrides (validated when the
 * configuration is parsed). Tests pass their own table.
 */
export interface WithdrawalFeeDeps {
  readonly networkFees: NetworkFeeTable;
}

let cached: { readonly from: object; readonly deps: WithdrawalFeeDeps } | undefined;

/** The fee table from configuration (rebuilt when the configuration is re-read). */
export function defaultWithdrawalFeeDeps(): WithdrawalFeeDeps {
  const c = config();
  if (cached?.from !== c) cached = { from: c, deps: { networkFees: networkFeeTable(c.WITHDRAWAL_NETWORK_FEES) } };
  return cached.deps;
}
