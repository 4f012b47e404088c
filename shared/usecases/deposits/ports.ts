/**
 * What the chain scanner's pass (./scan.ts) needs from outside: a DepositSource per scanned network (one adapter
 * per chain family, in shared/chain/<family>/deposit-source.ts), the scanner's cursor store (shared/store/scanner.ts)
 * and the deposit-address index (the payments repository's `matchAddresses`). Nothing here names a chain: the pass
 * and the use cases it feeds (payments/deposits.ts, custody/scan-deposits.ts) know these shapes only.
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
  balance(address: string, atBlock: number): Promise<bigint>;
}

/**
 * One network's new blocks as deposits: THE port of the chain scanner, one adapter per chain family. Its cost must
 * grow with blocks and transfers, never with the number of watched addresses (the pass matches `to` afterwards, in
 * one batched lookup of the deposit-address index).
 */
export interface DepositSource extends BlockReader {
  /** The chain family: the key of the deposit-address index (`DepositAddressIndex.matchAddresses`). */
  readonly family: string;
  /** An address (a catalogue contract, a stored deposit address) in the form the source reports transfers in. */
  addressForm(address: string): string;
  /** The newest block. */
  head(): Promise<number>;
  /** Transfers of these token contracts (in `addressForm`) in the blocks [from, to], inclusive. */
  tokenTransfers(from: number, to: number, tokens: readonly string[]): Promise<TokenTransfer[]>;
  /** The native coin's transfers and balances; absent where a family's native transfers show as events. */
  readonly native?: NativeCoinReader;
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

export interface DepositAddressIndex {
  /** Which of these addresses (in the family's `addressForm`) are deposit addresses: ONE batched lookup. */
  matchAddresses(family: string, addresses: readonly string[]): Promise<AddressMatch[]>;
}

/** A network scanner's cursor: the last block scanned and recent block hashes (for reorgs). */
export interface ScanCursor {
  readonly network: string;
  readonly block: number;
  readonly hashes: readonly { readonly n: number; readonly hash: string }[];
}

export interface ScanCursorStore {
  get(network: string): Promise<ScanCursor | null>;
  /** Moves the cursor if it is still at `expected` (null: not created yet); false when another scanner moved it. */
  move(network: string, expected: number | null, next: ScanCursor): Promise<boolean>;
  /** The network's scanning lease; false while another owner holds it unexpired. */
  acquireLease(network: string, owner: string, now: Date, until: Date): Promise<boolean>;
  releaseLease(network: string, owner: string): Promise<void>;
}

/** A transfer the pass found to a deposit address, in a catalogue token: what the payment and custody use cases apply. */
export interface FoundDeposit {
  /** `<network>:<tx hash>:<log index>`: recorded once. */
  readonly id: string;
  readonly network: string;
  readonly transfer: TokenTransfer;
  /** Confirmations at the pass's head. */
  readonly confirmations: number;
}
