import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import type { ChainResultPorts } from '../usecases/chain-tx/ports.js';
import { custodySweepOf } from '../domain/custody.js';
import { dynamoCustodyDeposits } from '../store/custody.js';
import { onCustodySweepResult } from '../usecases/custody/scan-deposits.js';
import { onSweepResult } from '../usecases/payments/settle.js';
import { onWithdrawalChainResult } from '../usecases/withdrawals/process.js';
import { paymentsRuntime } from './payments.js';
import { withdrawalsRuntime } from './withdrawals.js';

/** The chain-results worker's ports: the payment and withdrawal settlements, wired from configuration. */
export function chainResultsRuntime(cfg: Config = config()): ChainResultPorts {
  const payments = paymentsRuntime(cfg);
  const withdrawals = withdrawalsRuntime(cfg);
  return {
    settle: {
      sweep: async (reference, result, now) => {
        // A custody deposit's sweep (`custody:<tenant>:<deposit>`), else a payment's (`payment:<tenant>:<id>`).
        const custody = custodySweepOf(reference);
        if (custody) await onCustodySweepResult(custody, result, { custodyDeposits: dynamoCustodyDeposits }, now);
        else await onSweepResult(reference, result, payments, now);
      },
      withdrawal: (tenantId, withdrawalId, result, now) => onWithdrawalChainResult(tenantId, withdrawalId, result, now, withdrawals),
    },
    clock: systemClock,
  };
}
