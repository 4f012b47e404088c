/** What the chain scanner's pass (./scan.ts) keeps between passes: each network's cursor and lease (shared/store/scanner.ts). */

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
  /**
   * Whether a run holds the network's lease unexpired at `now`: a read, cheaper than a refused lease write (the
   * cursor item is a few KB), asked by a woken run before it tries; the lease's conditional write still decides.
   */
  leaseHeld(network: string, now: Date): Promise<boolean>;
}
