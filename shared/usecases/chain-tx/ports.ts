import type { Clock } from '../../domain/clock.js';

/** A sweep's outcome as the payment settlement takes it. */
export type SweepResult = { readonly ok: true; readonly txHash: string } | { readonly ok: false };
/** A withdrawal's chain outcome as the withdrawal settlement takes it. */
export type WithdrawalChainResult = { readonly ok: true; readonly txHash: string } | { readonly ok: false; readonly reason: string };

/** Where chain results go, by purpose: the payment and withdrawal use cases that settle them. */
export interface ChainResultSettlement {
  /** `reference` is the sweep reference of one thing (`payment:<tenant>:<payment id>`, `custody:<tenant>:<deposit>`). */
  sweep(reference: string, result: SweepResult, now: Date): Promise<unknown>;
  /** A batched sweep's result (reference `sweep:<uuid>`; `requestId` names its request, which lists its payments). */
  sweepBatch?(requestId: string, result: SweepResult, now: Date): Promise<unknown>;
  withdrawal(tenantId: string, withdrawalId: string, result: WithdrawalChainResult, now: Date): Promise<unknown>;
  /** A batch payout's result (`requestId` names the batch's request, which lists its withdrawals). */
  withdrawalBatch?(requestId: string, result: WithdrawalChainResult, now: Date): Promise<unknown>;
}

export interface ChainResultPorts {
  readonly settle: ChainResultSettlement;
  readonly clock: Clock;
}
