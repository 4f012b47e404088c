import type { AdjustmentDeps, AdjustmentInput, AdjustmentResult } from './adjustment.js';
import { adjust } from './adjustment.js';

export { AdjustmentInput as CreditAdjustmentInput } from './adjustment.js';

/** Operator `balance credit`: adds `amount` to the tenant's account, journalled as an adjustment with a reason. */
export function creditAdjustment(input: AdjustmentInput, deps: AdjustmentDeps): Promise<AdjustmentResult> {
  return adjust('credit', input, deps);
}
