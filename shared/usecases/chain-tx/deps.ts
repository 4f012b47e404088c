import type { FeeCaps } from '../../chain/engine/fees.js';
import type { ChainPort, ChainTxStorePort, CrashPoint, TronChainPort, TronSignerPort, TxSignerPort } from '../../chain/engine/ports.js';
import type { ChainTx } from '../../chain/engine/state.js';

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
  readonly clock: () => Date;
  readonly settings: ChainTxSettings;
  /** Test hook: throw here to simulate the processor dying at that point. */
  readonly crash?: (point: CrashPoint, tx: ChainTx) => void | Promise<void>;
}
