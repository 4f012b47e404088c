/**
 * Ports of the chain-transaction engine. Adapters: `shared/chain/engine/evm.ts` (ethers JSON-RPC, KMS signer),
 * `shared/store/chain-tx.ts` (DynamoDB).
 */
import type { FeeSuggestion } from './fees.js';
import type { EventPayload } from '../../domain/events.js';
import type { CHAIN_TX_REQUESTED, ChainTx, ChainTxEffect, EvmFees } from './state.js';

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

/** Where a processor may be "killed" in tests (a throwing hook). */
export type CrashPoint = 'after_nonce' | 'after_sign' | 'after_persist' | 'after_broadcast' | 'after_bump_sign' | 'after_bump_persist';

/** The event written with a new request, in the same transaction. */
export interface ChainTxAnnouncement {
  readonly eventType: typeof CHAIN_TX_REQUESTED;
  readonly payload: EventPayload<typeof CHAIN_TX_REQUESTED>;
}

export interface ChainTxStorePort {
  get(requestId: string): Promise<ChainTx | undefined>;
  /** Creates the request; false (and nothing written) if it already exists. */
  create(tx: ChainTx, announce?: ChainTxAnnouncement): Promise<boolean>;
  /** Saves `next` if the stored version is still `expectedVersion`; writes the effects in the same transaction. */
  save(next: ChainTx, expectedVersion: number, effects?: readonly ChainTxEffect[]): Promise<void>;
  /** Gives `tx` (version `expectedVersion`, status queued) the wallet's next nonce: free-list first, else the counter. */
  allocateNonce(tx: ChainTx, expectedVersion: number, chainNonce: () => Promise<number>, now: Date): Promise<ChainTx>;
  /** Open requests of a network (oldest first). */
  listOpen(network: string, limit?: number): Promise<ChainTx[]>;
  /** Takes (or renews) the follower lease of a network; false while another owner holds it unexpired. */
  acquireLease(network: string, owner: string, now: Date, ttlSeconds: number): Promise<boolean>;
  releaseLease(network: string, owner: string): Promise<void>;
}

/** The head (or any) block of a TRON chain: what a transaction refers to (TAPOS) and when it may expire. */
export interface TronBlockRef {
  readonly number: number;
  /** Block id, 64 hex digits. */
  readonly id: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/** TRON's side of the engine (no nonces, no gas price): blocks, balances, broadcast and receipts by txID. */
export interface TronChainPort {
  head(): Promise<TronBlockRef>;
  block(number: number): Promise<TronBlockRef | null>;
  /** TRX balance in sun. */
  balance(address: string): Promise<bigint>;
  /** Whether the address was ever activated (a TRC-20 transfer to a new address costs more energy). */
  isActivated(address: string): Promise<boolean>;
  /** A contract call run without a transaction: false (with the node's message) when it would revert. */
  dryRun(call: { owner: string; contract: string; data: string; callValue: bigint }): Promise<{ ok: boolean; message: string }>;
  broadcast(signedHex: string): Promise<BroadcastOutcome>;
  receipt(txID: string): Promise<TxReceipt | null>;
}

/** Signs a TRON transaction id (sha256 of its raw data) with a KMS key: 65 bytes r ‖ s ‖ v. */
export interface TronSignerPort {
  signTxID(keyId: string, txID: string): Promise<Uint8Array>;
}
