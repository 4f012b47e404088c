import type { ChainTx, ChainTxAttempt } from '../../domain/chain-tx.js';
import { awaitsBroadcast, currentAttempt, isFinal, isInFlight, isQueued, trackedHashes } from '../../domain/chain-tx.js';
import { NETWORKS } from '../../domain/currencies.js';
import { apply, block } from './changes.js';
import type { ChainTxDeps, TronCall, TronChainPort, TronEngineDeps, TxReceipt } from './ports.js';

/**
 * The engine on TRON (DESIGN section 5): no nonces, and every transaction expires.
 *
 * - queued -> signed: a contract call is first run dry (one that would revert waits with `estimate_failed`), then
 *   built by the chain port against the current head (TAPOS reference, `expiration` = head time + the configured
 *   lifetime), signed by the signer port (KMS, over its id), PERSISTED, then broadcast (same bytes on
 *   every retry; `DUP_TRANSACTION_ERROR` is an answer, not an error);
 * - followed by txID: found in a block with enough confirmations -> confirmed (or reverted);
 * - re-signed ONLY once the current attempt is known never to reach the chain: the block `confirmations` deep
 *   is already past its expiration (no later block can include it) and none of the tracked ids has a
 *   receipt. So at most one attempt of a request can ever be included, whichever it is.
 */
export const isTronNetwork = (network: string): boolean => NETWORKS[network as keyof typeof NETWORKS]?.family === 'tron';

function tronOf(deps: ChainTxDeps): TronEngineDeps {
  if (!deps.tron) throw new Error('No TRON endpoint configured (TRON_API_URL)');
  return deps.tron;
}

/** The request as a TRON contract: a TRX transfer for a bare value, else a contract call. Addresses in 0x-20-byte form. */
export function tronContractOf(tx: Pick<ChainTx, 'wallet' | 'to' | 'data' | 'value'>): TronCall {
  if (tx.data === '0x') return { kind: 'transfer', owner: tx.wallet.address, to: tx.to, amount: tx.value };
  return { kind: 'trigger', owner: tx.wallet.address, contract: tx.to, callValue: tx.value, data: tx.data };
}

/** Builds and signs an attempt against the current head. */
export async function signTronAttempt(tx: ChainTx, chain: TronChainPort, deps: ChainTxDeps): Promise<ChainTxAttempt> {
  const tron = tronOf(deps);
  const head = await chain.head();
  const contract = tronContractOf(tx);
  const feeLimit = contract.kind === 'trigger' ? (tx.gasLimit ?? tron.feeLimit) : 0n;
  const expiration = head.timestamp + tron.expirationSeconds * 1000;
  const unsigned = chain.build({ call: contract, refBlock: head, expiration, timestamp: deps.clock().getTime(), feeLimit });
  const signed = await tron.signer.sign(tx.wallet.keyId, unsigned);
  if (signed.hash !== unsigned.txID) throw new Error(`${tx.requestId}: the signer returned ${signed.hash} for ${unsigned.txID}`);
  return {
    hash: signed.hash,
    raw: signed.raw,
    fees: { type: 'tron', feeLimit },
    gasLimit: 0n,
    signedAt: deps.clock().toISOString(),
    expiresAt: new Date(expiration).toISOString(),
  };
}

async function broadcastCurrent(tx: ChainTx, chain: TronChainPort, deps: ChainTxDeps): Promise<ChainTx> {
  const attempt = currentAttempt(tx);
  if (!attempt) throw new Error(`${tx.requestId} is ${tx.status} without a signed transaction`);
  const outcome = await chain.broadcast(attempt.raw);
  if (outcome.kind === 'insufficient_funds') return awaitsBroadcast(tx) ? block(tx, 'insufficient_gas', deps) : tx;
  // `expired`: never on chain through this attempt; the follower re-signs once that is certain.
  if (outcome.kind === 'expired') return tx;
  await deps.crash?.('after_broadcast', tx);
  return awaitsBroadcast(tx) ? apply(tx, { type: 'broadcast' }, deps) : tx;
}

/** processChainTx on TRON: sign (no nonce), persist, broadcast. */
export async function advanceTron(start: ChainTx, deps: ChainTxDeps): Promise<ChainTx> {
  let tx = start;
  if (isFinal(tx)) return tx;
  const chain = tronOf(deps).chain(tx.network);
  if (isQueued(tx)) {
    const contract = tronContractOf(tx);
    const needed = contract.kind === 'transfer' ? contract.amount : contract.callValue + (tx.gasLimit ?? tronOf(deps).feeLimit);
    if ((await chain.balance(tx.wallet.address)) < needed) return block(tx, 'insufficient_gas', deps);
    // A call that would revert (a wallet short of the token, say) is held, as an EVM estimate failure is: no fee burnt.
    if (contract.kind === 'trigger' && !(await chain.dryRun(contract)).ok) return block(tx, 'estimate_failed', deps);
    const attempt = await signTronAttempt(tx, chain, deps);
    await deps.crash?.('after_sign', tx);
    tx = await apply(tx, { type: 'signed', attempt }, deps);
    await deps.crash?.('after_persist', tx);
  }
  if (isInFlight(tx)) tx = await broadcastCurrent(tx, chain, deps);
  return tx;
}

async function minedReceipt(tx: ChainTx, chain: TronChainPort): Promise<TxReceipt | undefined> {
  for (const hash of trackedHashes(tx)) {
    const receipt = await chain.receipt(hash);
    if (receipt) return receipt;
  }
  return undefined;
}

export interface TronFollowResult {
  readonly tx: ChainTx;
  readonly outcome: 'confirmed' | 'reverted' | 'resigned' | 'rebroadcast' | 'waiting';
}

/** followChainTx on TRON. */
export async function followTron(start: ChainTx, deps: ChainTxDeps): Promise<TronFollowResult> {
  let tx = start;
  if (!isInFlight(tx)) return { tx, outcome: 'waiting' };
  const chain = tronOf(deps).chain(tx.network);
  // The settled block is read BEFORE the receipts: an attempt included meanwhile is then found by them.
  const head = await chain.head();
  const settled = await chain.block(Math.max(0, head.number - deps.settings.confirmations + 1));
  const receipt = await minedReceipt(tx, chain);
  if (receipt) {
    if (head.number - receipt.blockNumber + 1 < deps.settings.confirmations) return { tx, outcome: 'waiting' };
    tx = await apply(
      tx,
      { type: 'mined', mined: { hash: receipt.hash, blockNumber: receipt.blockNumber, status: receipt.status, gasUsed: receipt.gasUsed } },
      deps,
    );
    return { tx, outcome: receipt.status === 1 ? 'confirmed' : 'reverted' };
  }
  const attempt = currentAttempt(tx);
  if (!attempt?.expiresAt) throw new Error(`${tx.requestId} is ${tx.status} without an expiring attempt`);
  if (settled && settled.timestamp >= Date.parse(attempt.expiresAt)) {
    // Expired and settled without it: it can never be included. A new attempt (new id) is persisted first.
    const next = await signTronAttempt(tx, chain, deps);
    await deps.crash?.('after_bump_sign', tx);
    tx = await apply(tx, { type: 'bumped', attempt: next }, deps);
    await deps.crash?.('after_bump_persist', tx);
    return { tx: await broadcastCurrent(tx, chain, deps), outcome: 'resigned' };
  }
  tx = await broadcastCurrent(tx, chain, deps);
  return { tx, outcome: 'rebroadcast' };
}
