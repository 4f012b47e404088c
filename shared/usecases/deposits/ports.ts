/**
 * Deposits as the chains give them, behind ports: a DepositSource per scanned network (one adapter per chain
 * family, in shared/chain/<family>/deposit-source.ts) for the chain scanner's pass (shared/usecases/scanner/scan.ts),
 * and an AddressDepositSource for a family read per watched address (Solana, custody's poller). Nothing here names
 * a chain: the pass and the use cases it feeds (payments/deposits.ts, custody/scan-deposits.ts,
 * custody/solana-deposits.ts) know these shapes only.
 */

/** A block as the pass checks it: its number and hash (reorg detection, confirmations' re-check). */
export interface BlockRef {
  readonly number: number;
  readonly hash: string;
}

/** Reads one block's hash: null when the chain has no such block (yet, or any more). */
export interface BlockReader {
  block(number: number): Promise<BlockRef | null>;
}

/**
 * A token transfer to some address, in the source's address form (`DepositSource.addressForm`). `logIndex` orders it
 * in its transaction: with the network and the transaction hash, the deposit's natural id.
 */
export interface TokenTransfer {
  readonly token: string;
  readonly to: string;
  readonly value: bigint;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: number;
  readonly blockHash: string;
}

/** A top-level transfer of the network's native coin. */
export interface NativeTransfer {
  readonly to: string;
  readonly value: bigint;
  readonly txHash: string;
  readonly blockNumber: number;
  readonly blockHash: string;
}

/**
 * The native coin of a family whose coin transfers leave no token event: the range's top-level transfers, and a
 * balance at a block (coins a contract sent: no event, no top-level transaction).
 */
export interface NativeCoinReader {
  transfers(from: number, to: number): Promise<NativeTransfer[]>;
  /** Absent where every coin received shows among `transfers` (no contract can send it unseen). */
  balance?(address: string, atBlock: number): Promise<bigint>;
}

/**
 * The coins of a UTXO family (Bitcoin): every output of the blocks [from, to] that could be a deposit (the gateway's
 * deposit addresses are all P2WSH: a source may report those only), as transfers of the network's native coin:
 * `token` is '', `logIndex` the output's index (with the network and the transaction, the deposit's natural id).
 */
export interface CoinOutputReader {
  outputs(from: number, to: number): Promise<TokenTransfer[]>;
}

/** An output paying a watched address in a transaction not yet in a block. */
export interface MempoolOutput {
  readonly txHash: string;
  /** The output's index in its transaction. */
  readonly index: number;
  readonly to: string;
  readonly value: bigint;
  /** The transaction signals replaceability (BIP125): it may yet be replaced by one paying elsewhere. */
  readonly replaceable: boolean;
}

/** Where a transaction stands: in a block, waiting in the mempool, or gone (replaced, evicted, never seen). */
export type TxPlace =
  { readonly state: 'confirmed'; readonly blockNumber: number; readonly blockHash: string } | { readonly state: 'mempool' } | { readonly state: 'gone' };

/**
 * A UTXO family's mempool, read per watched address (a payment is "seen" seconds after its broadcast), and the place
 * of a transaction seen there (one that leaves the mempool without a block was replaced or evicted).
 */
export interface MempoolReader {
  incoming(address: string): Promise<MempoolOutput[]>;
  place(txHash: string): Promise<TxPlace>;
}

/**
 * One network's new blocks as deposits: THE port of the chain scanner, one adapter per chain family. Its cost must
 * grow with blocks and transfers, never with the number of watched addresses (the pass matches `to` afterwards, in
 * one batched lookup of the deposit-address index).
 */
export interface DepositSource extends BlockReader {
  /** The chain family: the key of the deposit-address index (`PaymentRepository.matchAddresses`). */
  readonly family: string;
  /** An address (a catalogue contract, a stored deposit address) in the form the source reports transfers in. */
  addressForm(address: string): string;
  /** The newest block. */
  head(): Promise<number>;
  /** Transfers of these token contracts (in `addressForm`) in the blocks [from, to], inclusive. */
  tokenTransfers(from: number, to: number, tokens: readonly string[]): Promise<TokenTransfer[]>;
  /** The native coin's transfers and balances; absent where a family's native transfers show as events. */
  readonly native?: NativeCoinReader;
  /** A UTXO family's outputs of a block range (matched against the deposit-address index like token transfers). */
  readonly utxos?: CoinOutputReader;
  /** A UTXO family's unconfirmed transactions, looked up for the payments waiting on the network. */
  readonly mempool?: MempoolReader;
  /** Calls made to the chain so far (bench, tests). */
  readonly calls: number;
  /** Frees what the source holds (called when a network's loop ends). */
  close(): void;
}

/** An address of the deposit-address index: a payment's, or a custody account's (`custodyAccountId`). */
export interface AddressMatch {
  readonly address: string;
  readonly tenantId: string;
  readonly paymentId: string;
  readonly currency: string;
  /** Set when the address is a custody account's (shared/domain/custody.ts), not a payment's. */
  readonly custodyAccountId?: string;
}

/**
 * A token transfer to one watched address, as a family read per address reports it (`AddressDepositSource`).
 * `index` orders it in its transaction (with the hash, the deposit's natural id; negative: not identifiable).
 */
export interface AddressTransfer {
  readonly txHash: string;
  readonly index: number;
  /** Base units received. */
  readonly amount: bigint;
  /** The block (slot) it landed in. */
  readonly blockNumber: number;
  /** Voted on by the cluster (at least one confirmation); false while only processed by a node. */
  readonly voted: boolean;
  /** Can no longer be rolled back: credit only then. */
  readonly final: boolean;
}

export interface AddressHistory {
  /** Newest reading of each transaction, oldest first. */
  readonly transfers: readonly AddressTransfer[];
  /** The cursor to pass as `since` next time: only ever past final transfers (unchanged when none is). */
  readonly cursor: string | undefined;
  /** More new transfers waited than one read takes: read again from `cursor`. */
  readonly more: boolean;
}

/**
 * A family whose blocks are too large to read for a handful of long-lived addresses (Solana: thousands of
 * transactions a block): each watched address's incoming token transfers are read from its own history instead,
 * from a cursor kept with the address. Custody's SOL addresses are read through it (shared/chain/solana/deposit-source.ts).
 */
export interface AddressDepositSource {
  /** The newest block (slot) counted for confirmations. */
  head(): Promise<number>;
  /** `owner`'s incoming transfers of the watched token since `since` (exclusive; absent: its whole history). */
  incoming(owner: string, since: string | undefined): Promise<AddressHistory>;
}

/**
 * One address's incoming token transfers in a block range, with the ids the scan gives them (custody's sync re-reads
 * an account's addresses this way: its cost grows with that address's transfers, not with the blocks' traffic).
 * The EVM and TRON deposit-source adapters implement it beside `DepositSource`.
 */
export interface RecipientTransferReader {
  /**
   * Transfers of these token contracts (in `DepositSource.addressForm`) to `recipient` (an address as stored) in the
   * blocks [from, to], inclusive, oldest first.
   */
  transfersTo(from: number, to: number, tokens: readonly string[], recipient: string): Promise<TokenTransfer[]>;
}
