import type { AdjustmentDeps, AdjustmentInput, AdjustmentResult } from './adjustment.js';
import { adjust } from './adjustment.js';

export { AdjustmentInput as DebitAdjustmentInput } from './adjustment.js';

/**
 * Operator `balance debit`: takes `amount` from the tenant's available funds, journalled as an adjustment
 * with a reason; InsufficientBalanceError (nothing changes) when the available amount is lower.
 */
export function debitAdjustment(input: AdjustmentInput, deps: AdjustmentDeps): Promise<AdjustmentResult> {
  return adjust('debit', input, deps);
}
