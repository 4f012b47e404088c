/**
 * What the chain-transaction engine needs from outside, and what its results settle. Adapters:
 * `shared/chain/engine/evm.ts` (ethers JSON-RPC, KMS signer), `shared/chain/engine/tron.ts` (TronGrid, the TRON
 * transaction codec of shared/chain/tron/transaction.ts, KMS),
 * `shared/store/chain-tx.ts` (DynamoDB); `shared/runtime/chain-tx.ts` and `shared/runtime/chain-results.ts` wire them.
 */
import type { Clock } from '../../domain/clock.js';
import type { ChainTx, ChainTxChange, CHAIN_TX_REQUESTED, EvmFees } from '../../domain/chain-tx.js';
import type { FeeCaps, FeeSuggestion } from '../../domain/chain-tx-fees.js';
import type { EventPayload } from '../../domain/events.js';
import type { HotCoinStore } from '../coins/ports.js';
import type { TxPlace } from '../deposits/ports.js';

/* ---------------------------------------------------------------- chains and signers */

export interface UnsignedTx {
  readonly chainId: bigint;
  readonly from: string;
  readonly to: string;
  readonly data: string;
  readonly value: bigint;
  readonly nonce: number;
  readonly gasLimit: bigint;
  readonly fees: EvmFees;
}

export interface SignedTx {
  readonly hash: string;
  readonly raw: string;
}

export interface TxReceipt {
  readonly hash: string;
  readonly blockNumber: number;
  readonly status: 0 | 1;
  readonly gasUsed: bigint;
  /** The logs it emitted (EVM); what a batch payout's settlement reads its items' outcomes from. */
  readonly logs?: readonly { readonly address: string; readonly topics: readonly string[]; readonly data: string }[];
}

/** What the node answered to a broadcast. `known` covers "already known" / "nonce too low" / underpriced replacement. */
export type BroadcastOutcome =
  | { readonly kind: 'accepted' }
  | { readonly kind: 'known'; readonly message: string }
  | { readonly kind: 'nonce_too_low'; readonly message: string }
  /** The node refused the bytes because the wallet cannot pay value + gas now: keep them, retry later. */
  | { readonly kind: 'insufficient_funds'; readonly message: string }
  /** TRON: the transaction's expiration has passed; it can never be included. */
  | { readonly kind: 'expired'; readonly message: string };

export interface ChainPort {
  chainId(): Promise<bigint>;
  balance(address: string): Promise<bigint>;
  /** Transactions mined from `address` up to block `atBlock` (default: the latest). */
  minedNonce(address: string, atBlock?: number): Promise<number>;
  estimateGas(tx: { from: string; to: string; data: string; value: bigint }): Promise<bigint>;
  feeSuggestion(): Promise<FeeSuggestion>;
  broadcast(raw: string): Promise<BroadcastOutcome>;
  receipt(hash: string): Promise<TxReceipt | null>;
  blockNumber(): Promise<number>;
}

export interface TxSignerPort {
  sign(keyId: string, tx: UnsignedTx): Promise<SignedTx>;
}

/* ---------------------------------------------------------------- the requests' store */

/** Where a processor may be "killed" in tests (a throwing hook). */
export type CrashPoint = 'after_nonce' | 'after_sign' | 'after_persist' | 'after_broadcast' | 'after_bump_sign' | 'after_bump_persist';

/** The event written with a new request, in the same transaction. */
export interface ChainTxAnnouncement {
  readonly eventType: typeof CHAIN_TX_REQUESTED;
  readonly payload: EventPayload<typeof CHAIN_TX_REQUESTED>;
}

/**
 * The requests' repository (shared/store/chain-tx.ts). It alone bumps a request's version: every save is conditioned
 * on the version read, and a lost race is a ConflictError (re-read and decide again).
 */
export interface ChainTxStorePort {
  get(requestId: string): Promise<ChainTx | undefined>;
  /** Creates the request (with its announcement, in one transaction): the stored request, or null if one exists. */
  create(tx: ChainTx, announce?: ChainTxAnnouncement): Promise<ChainTx | null>;
  /** Saves a change of `previous` (its request, events and effects, in one transaction): the stored request. */
  save(previous: ChainTx, change: ChainTxChange): Promise<ChainTx>;
  /**
   * Gives `tx` (status queued) the wallet's next nonce, free-list first, else the counter (which starts at
   * `chainNonce()`), in one transaction with the request's save: the stored request.
   */
  allocateNonce(tx: ChainTx, chainNonce: () => Promise<number>, now: Date): Promise<ChainTx>;
  /** Open requests of a network (oldest first). */
  listOpen(network: string, limit?: number): Promise<ChainTx[]>;
  /** Takes (or renews) the follower lease of a network; false while another owner holds it unexpired. */
  acquireLease(network: string, owner: string, now: Date, ttlSeconds: number): Promise<boolean>;
  releaseLease(network: string, owner: string): Promise<void>;
  /** Whether another run holds the network's follower lease unexpired (a read: no refused write). */
  leaseHeld(network: string, now: Date): Promise<boolean>;
}

/* ---------------------------------------------------------------- TRON */

/** The head (or any) block of a TRON chain: what a transaction refers to (TAPOS) and when it may expire. */
export interface TronBlockRef {
  readonly number: number;
  /** Block id, 64 hex digits. */
  readonly id: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/**
 * What a TRON transaction does: a TRX transfer of `amount` sun, or a contract call (TRC-20 transfer, factory sweep).
 * Addresses in 0x-20-byte form, `data` as 0x-hex call data.
 */
export type TronCall =
  | { readonly kind: 'transfer'; readonly owner: string; readonly to: string; readonly amount: bigint }
  | { readonly kind: 'trigger'; readonly owner: string; readonly contract: string; readonly callValue: bigint; readonly data: string };

/** A TRON transaction to build: the call, pinned to `refBlock` (TAPOS), includable before `expiration`. */
export interface TronTxSpec {
  readonly call: TronCall;
  readonly refBlock: TronBlockRef;
  /** Milliseconds since the epoch; the transaction cannot be included in a block at or after it. */
  readonly expiration: number;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  /** Most sun a contract call may burn for energy (0 for a TRX transfer). */
  readonly feeLimit: bigint;
}

/** A built, unsigned TRON transaction: its id (sha256 of its raw data, 64 hex digits, what is signed) and raw data. */
export interface UnsignedTronTx {
  readonly txID: string;
  readonly rawDataHex: string;
}

/** TRON's side of the engine (no nonces, no gas price): blocks, balances, building, broadcast and receipts by txID. */
export interface TronChainPort {
  head(): Promise<TronBlockRef>;
  block(number: number): Promise<TronBlockRef | null>;
  /** TRX balance in sun. */
  balance(address: string): Promise<bigint>;
  /** Whether the address was ever activated (a TRC-20 transfer to a new address costs more energy). */
  isActivated(address: string): Promise<boolean>;
  /** A contract call run without a transaction: false (with the node's message) when it would revert. */
  dryRun(call: { owner: string; contract: string; data: string; callValue: bigint }): Promise<{ ok: boolean; message: string }>;
  /** The unsigned transaction of `spec` (offline: the same spec gives the same bytes and id). */
  build(spec: TronTxSpec): UnsignedTronTx;
  /** Takes the signed transaction as `TronSignerPort.sign` returns it (`SignedTx.raw`). */
  broadcast(signedHex: string): Promise<BroadcastOutcome>;
  receipt(txID: string): Promise<TxReceipt | null>;
}

/**
 * Signs a built TRON transaction with a KMS key (secp256k1 over its id): `hash` is its txID, `raw` the signed
 * transaction as hex, what `TronChainPort.broadcast` takes.
 */
export interface TronSignerPort {
  sign(keyId: string, tx: UnsignedTronTx): Promise<SignedTx>;
}

/* ---------------------------------------------------------------- Bitcoin */

/** One output a Bitcoin request pays: its item (`<tenant>:<withdrawal>`), the address, satoshis. */
export interface BtcPayoutOutput {
  readonly item: string;
  readonly address: string;
  readonly value: bigint;
}

/** A coin of the hot wallet as a batch spends it (HotCoin of shared/usecases/coins/ports.ts). */
export interface BtcSpendCoin {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  /** The witness script's tag, 64 hex digits. */
  readonly tag: string;
}

/** A batch's transaction as planned: inputs, fee, change (its output follows the payouts) and each payout's share. */
export interface BtcBatchPlan {
  readonly inputs: readonly BtcSpendCoin[];
  readonly payouts: readonly BtcPayoutOutput[];
  readonly change: { readonly vout: number; readonly value: bigint; readonly address: string } | null;
  readonly fee: bigint;
  readonly feeRate: bigint;
  readonly vsize: number;
  readonly shares: readonly bigint[];
}

export type BtcPlanOutcome =
  | { readonly ok: true; readonly plan: BtcBatchPlan }
  /** The coins cannot cover the outputs and the fee. */
  | { readonly ok: false; readonly reason: 'insufficient'; readonly needed: bigint; readonly available: bigint }
  /** An output no transaction can carry (not an address of the network, below its dust limit). */
  | { readonly ok: false; readonly reason: 'invalid_output'; readonly message: string };

/**
 * Plans and signs Bitcoin batches (shared/chain/engine/btc.ts over shared/chain/btc/transaction.ts and the KMS
 * signer): coin selection, fee, change to the hot wallet, BIP143 signatures (one signer call per input, verified).
 */
export interface BtcTxBuilderPort {
  plan(input: {
    readonly keyId: string;
    readonly payouts: readonly BtcPayoutOutput[];
    readonly coins: readonly BtcSpendCoin[];
    readonly feeRate: bigint;
    /** Spend exactly `coins` (a replacement keeps its inputs). */
    readonly fixedInputs?: boolean;
    /** The fee of the attempt a replacement replaces (BIP125). */
    readonly replacesFee?: bigint;
  }): Promise<BtcPlanOutcome>;
  sign(keyId: string, plan: BtcBatchPlan): Promise<{ readonly txid: string; readonly raw: string; readonly vsize: number }>;
  /** The 64-hex tag of the change output's witness script (what the change coin records). */
  readonly changeTag: string;
}

/** Bitcoin's side of the engine: the tip, a fee rate, a transaction's status, broadcast. */
export interface BtcChainPort {
  tipHeight(): Promise<number>;
  /** Sat/vB for confirmation within the configured target (from `/fee-estimates`), at least 1. */
  feeRate(): Promise<bigint>;
  /** Where the transaction stands: in a block, in the mempool, or gone (replaced, evicted, never seen). */
  status(txid: string): Promise<TxPlace>;
  /** `known` also covers a transaction whose inputs another of the request's attempts already spends. */
  broadcast(raw: string): Promise<BroadcastOutcome>;
}

/** The engine on Bitcoin (shared/usecases/chain-tx/btc.ts). */
export interface BtcEngineDeps {
  chain(network: string): BtcChainPort;
  readonly builder: BtcTxBuilderPort;
  readonly coins: HotCoinStore;
  /** Confirmations before a batch is final (the catalogue's, 2 for BTC). */
  readonly confirmations: number;
  /** A batch still unconfirmed this many blocks after its signature is replaced at a higher fee. */
  readonly replaceAfterBlocks: number;
  /** The most coins a batch's selection looks at (largest first). */
  readonly maxCoins: number;
}

/* ---------------------------------------------------------------- the engine's dependencies */

export interface ChainTxSettings {
  /** Blocks on top of (and including) the mined one before a request is final. */
  readonly confirmations: number;
  /** A broadcast transaction not mined after this long is re-signed with higher fees (same nonce). */
  readonly bumpAfterSeconds: number;
  readonly caps: FeeCaps;
  /** Fee bump in per mille (125 = 12.5 %); at least the pools' 10 %. */
  readonly bumpPermille?: bigint;
  /** The follower (re)processes queued/allocated requests idle this long (the SQS path normally does). */
  readonly retryQueuedAfterSeconds: number;
}

/** The engine on TRON networks (shared/usecases/chain-tx/tron.ts). */
export interface TronEngineDeps {
  chain(network: string): TronChainPort;
  readonly signer: TronSignerPort;
  /** Lifetime of a signed transaction (its `expiration` = the head block's time + this). */
  readonly expirationSeconds: number;
  /** Default `fee_limit` of a contract call, in sun. */
  readonly feeLimit: bigint;
}

export interface ChainTxDeps {
  readonly store: ChainTxStorePort;
  /** The chain of a network; throws for a network without an RPC endpoint. */
  chain(network: string): ChainPort;
  readonly signer: TxSignerPort;
  /** TRON networks; absent where no TRON endpoint is configured. */
  readonly tron?: TronEngineDeps;
  /** Bitcoin; absent where no Esplora endpoint is configured (BTC_API_URL). */
  readonly btc?: BtcEngineDeps;
  readonly clock: () => Date;
  readonly settings: ChainTxSettings;
  /** Test hook: throw here to simulate the processor dying at that point. */
  readonly crash?: (point: CrashPoint, tx: ChainTx) => void | Promise<void>;
}

/* ---------------------------------------------------------------- results */

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
  /** A batch of pull subscriptions' charges (`requestId` names its request, which lists the periods' charges). */
  subscriptionCharges?(requestId: string, result: SweepResult, now: Date): Promise<unknown>;
}

export interface ChainResultPorts {
  readonly settle: ChainResultSettlement;
  readonly clock: Clock;
}
