import { systemClock } from '../domain/clock.js';
import type { ChainResultPorts } from '../usecases/chain-tx/ports.js';
import { defaultPaymentsDeps } from '../usecases/payments/deps.js';
import { onSweepResult } from '../usecases/payments/settle.js';
import { onWithdrawalChainResult } from '../usecases/withdrawals/process.js';

/**
 * The chain-results worker's ports: the payment and withdrawal settlements as they are wired today. The
 * payments' dependencies are resolved per call (they read the configuration, which tests set after import).
 */
export function chainResultsRuntime(): ChainResultPorts {
  return {
    settle: {
      sweep: (reference, result, now) => onSweepResult(reference, result, defaultPaymentsDeps(), now),
      withdrawal: (tenantId, withdrawalId, result, now) => onWithdrawalChainResult(tenantId, withdrawalId, result, now),
    },
    clock: systemClock,
  };
}
