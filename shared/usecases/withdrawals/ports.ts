import type { ChainTxDeps, ChainTxStorePort, TxReceipt } from '../chain-tx/ports.js';
import type { Clock } from '../../domain/clock.js';
import type { ServedNetworks } from '../../domain/currencies.js';
import type { Decimal } from '../../domain/money.js';
import type { Log } from '../../observability/logger.js';
import type { WithdrawalChange, WithdrawalQueue, WithdrawalState } from '../../domain/withdrawals.js';
import type { LedgerPort } from '../ledger/ports.js';
import type { WriteItem } from '../ports.js';
import type { RatesDeps } from '../rates/ports.js';
import type { WalletDirectory } from '../wallets/ports.js';
import type { WithdrawalFeeDeps } from './network-fees.js';

/**
 * What the withdrawal use cases need from outside, as ports. `shared/runtime/withdrawals.ts` builds the real
 * ones; tests pass `test/support/fakes/withdrawals.ts`.
 */

export interface WithdrawalCreation {
  /** The new withdrawal, its events and its hold (`openWithdrawal`). */
  readonly change: WithdrawalChange;
  /** The tenant's total of the day in USD, kept within its daily limit in the same transaction. */
  readonly dayTotal: { readonly amountUsd: Decimal; readonly limitUsd: Decimal } | null;
  /**
   * Writes whose conditions the withdrawal must meet, committed with it (a custody account's rolling total): when one
   * refuses, nothing is written and the creation throws `refused()`.
   */
  readonly conditions?: { readonly items: readonly WriteItem[]; readonly refused: () => Error };
  /** Writes that commit with the withdrawal, given it as stored (the Idempotency-Key record and its answer). */
  readonly alsoWrite?: (stored: WithdrawalState) => readonly WriteItem[];
}

export interface WithdrawalListOrder {
  readonly by: 'created' | 'amount';
  readonly ascending: boolean;
  /** Bounds on created_at (ISO), inclusive. */
  readonly from?: string;
  readonly to?: string;
}

export interface WithdrawalRepository {
  get(tenantId: string, withdrawalId: string): Promise<WithdrawalState | null>;
  /**
   * The withdrawal, its hold on the source account (InsufficientBalanceError when it cannot be covered), the day's
   * total (DailyLimitError past the limit), its `conditions`, its events and `alsoWrite`, in ONE transaction. Returns
   * it as stored.
   */
  create(creation: WithdrawalCreation, now: Date): Promise<WithdrawalState>;
  /**
   * Saves `change` of `previous` with its events, its ledger entry and `alsoWrite` (the Idempotency-Key record) in
   * ONE transaction, conditioned on the version read (ConflictError when it moved). Returns it as stored.
   */
  save(previous: WithdrawalState, change: WithdrawalChange, now: Date, alsoWrite?: (stored: WithdrawalState) => readonly WriteItem[]): Promise<WithdrawalState>;
  /** Every withdrawal of a tenant in an order (per-tenant indexes, never a Scan). */
  list(tenantId: string, order: WithdrawalListOrder): Promise<WithdrawalState[]>;
  /** The oldest withdrawals of every tenant in a work queue. */
  queued(queue: WithdrawalQueue, limit: number): Promise<WithdrawalState[]>;
}

export interface WithdrawalSettings {
  /** Plain-HTTP loopback callback URLs (the local stack only). */
  readonly allowLoopbackCallbacks: boolean;
  /** Deployment stage: the staging addresses settle by themselves outside `prod`. */
  readonly stage: string;
}

export interface WithdrawalsDeps {
  readonly withdrawals: WithdrawalRepository;
  readonly ledger: Pick<LedgerPort, 'balance' | 'balances'>;
  readonly rates: RatesDeps;
  readonly fees: WithdrawalFeeDeps;
  /** Reads a withdrawal's chain transaction (why a processing one waits). */
  readonly chainTxs: Pick<ChainTxStorePort, 'get'>;
  readonly settings: WithdrawalSettings;
  readonly clock: Clock;
  /** What this deployment serves: a withdrawal is taken only in a currency it sends. */
  readonly served: ServedNetworks;
  /** The tenant's wallets, which `account_id` names by uuid (none known without it). */
  readonly wallets?: WalletDirectory;
}

/** What reads of the catalogue as configured need: the currencies switched off and what this deployment serves. */
export interface CatalogueDeps {
  readonly rates: Pick<RatesDeps, 'disabled'>;
  readonly served: ServedNetworks;
}

export interface BatchPayoutSettings {
  /** The hot wallet's BatchPayout contract (the same address on every EVM network). */
  readonly contract: string;
  /** The most withdrawals in one batch (at most 256). */
  readonly maxItems: number;
}

/** One transfer of a batch payout: the recipient (0x-hex) and base units of the token. */
export interface PayoutItem {
  readonly to: string;
  readonly units: bigint;
}

/** A mined batch payout as its `Payouts` event tells it. */
export interface BatchOutcome {
  readonly token: string;
  readonly count: number;
  /** Indexes of the items NOT paid. */
  readonly failed: readonly number[];
}

/**
 * The call data of the withdrawals' contract calls, so that no use case encodes ABI: a token's `transfer` (one
 * withdrawal; the TVM takes the same call data), and the BatchPayout contract's (contracts/BatchPayout.sol)
 * `payout`, its decoding, the hot wallet's approval of the contract, and a mined payout's outcome. Adapter:
 * `payoutCalls` (shared/chain/evm/batch-payout.ts, the transfer from shared/chain/evm/erc20.ts).
 */
export interface PayoutCalls {
  /** ERC-20 `transfer(to, units)`. */
  transfer(to: string, units: bigint): string;
  /** `payout(token, recipients, amounts)`: 1 to 256 items. */
  batchPayout(token: string, items: readonly PayoutItem[]): string;
  /** The token and the items of `payout` call data, in order. */
  decodeBatchPayout(data: string): { readonly token: string; readonly items: readonly PayoutItem[] };
  /** The token's `approve(contract, 2^256 - 1)`: what the batch contract needs before it pays. */
  batchPayoutApproval(contract: string): string;
  /** The outcome in a receipt's logs of a `payout` call to `contract`: null when they hold no `Payouts` event of it. */
  batchOutcome(logs: NonNullable<TxReceipt['logs']>, contract: string): BatchOutcome | null;
}

/** What the withdrawal batcher (shared/usecases/withdrawals/process.ts) and its batch payouts (batch.ts) need. */
export interface BatcherDeps extends Pick<WithdrawalsDeps, 'withdrawals' | 'settings' | 'clock' | 'served'> {
  /** The hot wallet that sends withdrawals on a network (on TRON the same key's TRON address, given in 0x form). */
  readonly wallet: (network: string) => Promise<{ keyId: string; address: string }>;
  readonly chainTx: Pick<ChainTxDeps, 'store' | 'clock'>;
  /** Token contract of a currency in this deployment (null for a native coin or none known). */
  readonly tokenContract: (currency: string) => string | null;
  /** Where a withdrawal that cannot be handed on is reported (the worker's structured logger). */
  readonly log: Pick<Log, 'error'>;
  /** Batch payouts of ERC-20 withdrawals (shared/usecases/withdrawals/batch.ts); absent: every withdrawal alone. */
  readonly batchPayout?: BatchPayoutSettings;
  /** The call data of token transfers and batch payouts. */
  readonly calls: PayoutCalls;
  /** Bitcoin withdrawals, all of a pass in ONE transaction (shared/usecases/withdrawals/btc-batch.ts); absent: not sent here. */
  readonly btcBatch?: BtcBatchSettings;
}

export interface BtcBatchSettings {
  /** The most outputs (withdrawals) in one transaction. */
  readonly maxOutputs: number;
}
