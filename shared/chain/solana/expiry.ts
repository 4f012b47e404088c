/**
 * When a Solana transaction can be signed again (DESIGN section 5: "never two transfers for one withdrawal").
 *
 * A transaction refers to a recent blockhash and can be included only in a block whose height is at most that
 * blockhash's `lastValidBlockHeight` (getLatestBlockhash answers both). So a sent transaction is known never to
 * land once a FINALIZED block is past that height and no status exists for it: every block that could hold it
 * is then rooted, and a landed transaction would have a status. Only then may the caller sign a new one (a new
 * blockhash, hence a new signature); until then it re-sends the same bytes. Like TRON's expiry
 * (shared/usecases/chain-tx/tron.ts), the block height is read BEFORE the statuses, so that an attempt landing
 * in between is seen by the statuses.
 */
import type { SignatureStatus, SolanaRpcPort } from './rpc.js';

/** One signed transaction of a request: its signature and the last block height it may land in. */
export interface SolanaAttempt {
  readonly signature: string;
  readonly lastValidBlockHeight: number;
}

export type SolanaTxFate =
  /** One attempt is on chain (succeeded or failed: see `status.err`); follow its confirmation status. */
  | { readonly kind: 'landed'; readonly signature: string; readonly status: SignatureStatus }
  /** None is on chain yet, and one may still land: re-send the current bytes, sign nothing new. */
  | { readonly kind: 'pending' }
  /** None is on chain and none can ever land: sign a new one with a fresh blockhash. */
  | { readonly kind: 'expired' };

/** Rooted: the transaction's result can no longer be rolled back. */
export const isFinalized = (status: Pick<SignatureStatus, 'confirmationStatus'>): boolean => status.confirmationStatus === 'finalized';

/**
 * The decision, pure: `statuses` (one per attempt, null when the node knows none) must have been read after
 * `finalizedBlockHeight`.
 */
export function solanaTxFate(attempts: readonly SolanaAttempt[], statuses: readonly (SignatureStatus | null)[], finalizedBlockHeight: number): SolanaTxFate {
  if (attempts.length === 0) throw new RangeError('no attempt to judge');
  if (statuses.length !== attempts.length) throw new RangeError(`${attempts.length} attempts, ${statuses.length} statuses`);
  for (const [i, status] of statuses.entries()) {
    if (status) return { kind: 'landed', signature: (attempts[i] as SolanaAttempt).signature, status };
  }
  return attempts.every((a) => finalizedBlockHeight > a.lastValidBlockHeight) ? { kind: 'expired' } : { kind: 'pending' };
}

/** Reads the finalized block height, then every attempt's status (full history), and decides. */
export async function checkSolanaTxFate(
  rpc: Pick<SolanaRpcPort, 'getBlockHeight' | 'getSignatureStatuses'>,
  attempts: readonly SolanaAttempt[],
): Promise<SolanaTxFate> {
  const finalizedBlockHeight = await rpc.getBlockHeight('finalized');
  const statuses = await rpc.getSignatureStatuses(
    attempts.map((a) => a.signature),
    { searchTransactionHistory: true },
  );
  return solanaTxFate(attempts, statuses, finalizedBlockHeight);
}
