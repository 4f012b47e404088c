/**
 * Deposit detection on Solana for a few watched owners (custody's addresses): an owner's token deposits are the
 * transactions that raised the balance of its associated token account for the mint, read from that account's
 * history (`getSignaturesForAddress`, newest first, down to a signature cursor) and each transaction's parsed
 * token balances (`getTransaction` jsonParsed: `postTokenBalances - preTokenBalances` of the account). Reading
 * balances rather than instructions counts every way tokens arrive (Transfer, TransferChecked, MintTo, a
 * program's inner transfer) exactly once per transaction.
 *
 * Cost: per owner and poll, one `getSignaturesForAddress` (more only past `pageSize` new signatures) and one
 * `getTransaction` per new signature. The EVM and TRON scanners read blocks instead (O(blocks)), because payments
 * have an address each; a Solana block carries thousands of transactions, so for a handful of long-lived
 * custody addresses polling each one's history is far cheaper than reading blocks.
 *
 * Only the associated token account is watched: the account every wallet and exchange sends to by default.
 */
import { TOKEN_PROGRAM_ADDRESS, associatedTokenAddress } from './address.js';
import type { Commitment, ParsedTokenBalance, ParsedTransaction, SignatureInfo, SolanaRpcPort } from './rpc.js';

export interface IncomingTokenTransfer {
  readonly signature: string;
  readonly slot: number;
  readonly blockTime: number | null;
  /** The owner's associated token account that received it. */
  readonly tokenAccount: string;
  /** The token account's index in the transaction's account keys: with the signature, the transfer's natural id. */
  readonly accountIndex: number;
  /** Base units added to the account by this transaction. */
  readonly amount: bigint;
  /** The wallet whose token account paid it (the largest decrease of the mint in the transaction); null for a mint. */
  readonly from: string | null;
  readonly confirmationStatus: Commitment | null;
  /** Rooted: can no longer be rolled back. Credit only then. */
  readonly finalized: boolean;
}

export interface IncomingTokenTransfers {
  /** Oldest first; each transaction at most once per call. */
  readonly transfers: IncomingTokenTransfer[];
  /**
   * The signature to pass as `since` next time: the newest one such that it and every older one seen are
   * finalized (unchanged when none is). Transfers after it, still settling, are listed again by the next call.
   */
  readonly cursor: string | undefined;
  /** True when more new signatures waited than `maxTransactions`: call again with `cursor`. */
  readonly more: boolean;
}

export interface ListIncomingInput {
  readonly owner: string;
  readonly mint: string;
  readonly tokenProgram?: string;
  /** The cursor of the previous call (exclusive); absent: the account's whole history. */
  readonly since?: string;
  /** Signatures per `getSignaturesForAddress` page (1-1000, default 1000). */
  readonly pageSize?: number;
  /** Transactions read per call at most (default 100), oldest first. */
  readonly maxTransactions?: number;
}

/** Pages of history at most per call: past this many new signatures the address is not one custody watches. */
const MAX_PAGES = 20;

/** The change of `tokenAccount`'s balance of `mint` in a parsed transaction (0 when it is not touched). */
export function tokenBalanceChange(tx: ParsedTransaction, tokenAccount: string, mint: string): bigint {
  const index = tx.transaction.message.accountKeys.findIndex((k) => k.pubkey === tokenAccount);
  if (index < 0 || !tx.meta) return 0n;
  const amountIn = (balances: readonly ParsedTokenBalance[]): bigint =>
    balances.find((b) => b.accountIndex === index && b.mint === mint)?.uiTokenAmount.amount ?? 0n;
  return amountIn(tx.meta.postTokenBalances) - amountIn(tx.meta.preTokenBalances);
}

function payerOf(tx: ParsedTransaction, mint: string): string | null {
  if (!tx.meta) return null;
  let best: { owner: string | null; change: bigint } = { owner: null, change: 0n };
  for (const post of tx.meta.postTokenBalances) {
    if (post.mint !== mint) continue;
    const pre = tx.meta.preTokenBalances.find((b) => b.accountIndex === post.accountIndex && b.mint === mint)?.uiTokenAmount.amount ?? 0n;
    const change = post.uiTokenAmount.amount - pre;
    if (change < best.change) best = { owner: post.owner ?? null, change };
  }
  return best.owner;
}

/** New signatures of `address` after `since`, oldest first. */
async function newSignatures(
  rpc: Pick<SolanaRpcPort, 'getSignaturesForAddress'>,
  address: string,
  since: string | undefined,
  pageSize: number,
): Promise<SignatureInfo[]> {
  const newestFirst: SignatureInfo[] = [];
  let before: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const batch = await rpc.getSignaturesForAddress(address, {
      limit: pageSize,
      commitment: 'confirmed',
      ...(since === undefined ? {} : { until: since }),
      ...(before === undefined ? {} : { before }),
    });
    newestFirst.push(...batch);
    if (batch.length < pageSize) return newestFirst.reverse();
    before = batch[batch.length - 1]?.signature;
  }
  throw new Error(`${address}: more than ${MAX_PAGES * pageSize} new signatures; not a watched address`);
}

/** Incoming transfers of `mint` to `owner`'s associated token account since the cursor `since`. */
export async function listIncomingTokenTransfers(
  rpc: Pick<SolanaRpcPort, 'getSignaturesForAddress' | 'getTransaction'>,
  input: ListIncomingInput,
): Promise<IncomingTokenTransfers> {
  const pageSize = input.pageSize ?? 1000;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) throw new RangeError(`pageSize is 1 to 1000, got ${pageSize}`);
  const maxTransactions = input.maxTransactions ?? 100;
  const tokenAccount = associatedTokenAddress(input.owner, input.mint, input.tokenProgram ?? TOKEN_PROGRAM_ADDRESS);
  const signatures = await newSignatures(rpc, tokenAccount, input.since, pageSize);

  const transfers: IncomingTokenTransfer[] = [];
  let cursor = input.since;
  let settled = true;
  const batch = signatures.slice(0, maxTransactions);
  for (const info of batch) {
    const finalized = info.confirmationStatus === 'finalized';
    // A failed transaction moved no tokens (only its fee); it still counts for the cursor.
    const tx = info.err === null ? await rpc.getTransaction(info.signature, 'confirmed') : null;
    if (info.err === null && !tx) {
      // Listed but not readable yet (another node behind the load balancer): neither a transfer nor settled.
      settled = false;
      continue;
    }
    if (tx) {
      const amount = tokenBalanceChange(tx, tokenAccount, input.mint);
      if (amount > 0n) {
        transfers.push({
          signature: info.signature,
          slot: info.slot,
          blockTime: info.blockTime ?? tx.blockTime,
          tokenAccount,
          accountIndex: tx.transaction.message.accountKeys.findIndex((k) => k.pubkey === tokenAccount),
          amount,
          from: payerOf(tx, input.mint),
          confirmationStatus: info.confirmationStatus,
          finalized,
        });
      }
    }
    settled &&= finalized;
    if (settled) cursor = info.signature;
  }
  return { transfers, cursor, more: signatures.length > batch.length };
}
