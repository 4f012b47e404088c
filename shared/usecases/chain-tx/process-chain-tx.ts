import type { ChainTx, ChainTxAttempt, ChainTxReason, EvmFees } from '../../domain/chain-tx.js';
import { awaitsBroadcast, awaitsSignature, currentAttempt, isFinal, isInFlight, isQueued } from '../../domain/chain-tx.js';
import { initialFees, maxGasCost, withGasMargin } from '../../domain/chain-tx-fees.js';
import { NotFoundError } from '../../domain/errors.js';
import { apply, block, lostRace } from './changes.js';
import type { ChainPort, ChainTxDeps } from './ports.js';
import { advanceBtc, isBtcNetwork } from './btc.js';
import { advanceTron, isTronNetwork } from './tron.js';

/**
 * Moves one request as far as it can go now: nonce (from the wallet's nonce manager) -> signature (KMS) ->
 * PERSIST the signed bytes and hash -> broadcast -> `pending`. Safe to run any number of times, concurrently,
 * and after a crash at any point:
 * - a request keeps the nonce it was given (recorded in the same transaction as the counter); a crash before
 *   signing leaves it `allocated`, and the next run signs it;
 * - bytes signed but not persisted are thrown away (never broadcast); the next run signs again;
 * - persisted bytes are the only ones ever broadcast, and a retry re-broadcasts the SAME bytes ("already
 *   known" / "nonce too low" are answers, not errors: the follower decides from the receipts);
 * - every save is conditioned on the request's version: a processor that lost a race re-reads and continues
 *   from what the winner stored.
 * A wallet that cannot pay for gas leaves the request where it is (queued, or allocated if it already holds
 * a nonce) with reason `insufficient_gas`; nothing is lost, and the follower retries it.
 */
export async function processChainTx(requestId: string, deps: ChainTxDeps): Promise<ChainTx> {
  for (let round = 0; ; round++) {
    const tx = await deps.store.get(requestId);
    if (!tx) throw new NotFoundError(`No chain-tx request ${requestId}`);
    try {
      return await advance(tx, deps);
    } catch (error) {
      if (!lostRace(error) || round >= 20) throw error;
    }
  }
}

type Plan = { readonly gasLimit: bigint; readonly fees: EvmFees } | { readonly blocked: ChainTxReason };

/** Signs the request's transaction at `nonce` with these fees, as an attempt to persist before broadcasting. */
export async function signAttempt(tx: ChainTx, nonce: number, gasLimit: bigint, fees: EvmFees, chain: ChainPort, deps: ChainTxDeps): Promise<ChainTxAttempt> {
  const signed = await deps.signer.sign(tx.wallet.keyId, {
    chainId: await chain.chainId(),
    from: tx.wallet.address,
    to: tx.to,
    data: tx.data,
    value: tx.value,
    nonce,
    gasLimit,
    fees,
  });
  return { hash: signed.hash, raw: signed.raw, fees, gasLimit, signedAt: deps.clock().toISOString() };
}

/** Gas limit, fees, and whether the wallet can pay: value + gasLimit × max fee. */
export async function planTx(tx: ChainTx, chain: ChainPort, deps: ChainTxDeps): Promise<Plan> {
  let gasLimit = tx.gasLimit;
  if (gasLimit === undefined) {
    try {
      gasLimit = withGasMargin(await chain.estimateGas({ from: tx.wallet.address, to: tx.to, data: tx.data, value: tx.value }));
    } catch (error) {
      // A node estimating against an empty wallet answers "insufficient funds": that is a gas problem.
      const text = error instanceof Error ? error.message.toLowerCase() : '';
      return { blocked: /insufficient funds|insufficient balance/.test(text) ? 'insufficient_gas' : 'estimate_failed' };
    }
  }
  const fees = initialFees(await chain.feeSuggestion(), deps.settings.caps);
  const balance = await chain.balance(tx.wallet.address);
  if (balance < tx.value + maxGasCost(fees, gasLimit)) return { blocked: 'insufficient_gas' };
  return { gasLimit, fees };
}

async function advance(start: ChainTx, deps: ChainTxDeps): Promise<ChainTx> {
  let tx = start;
  if (isFinal(tx)) return tx;
  if (isTronNetwork(tx.network)) return advanceTron(tx, deps);
  if (isBtcNetwork(tx.network)) return advanceBtc(tx, deps);
  const chain = deps.chain(tx.network);

  let planned: Plan | undefined;
  if (isQueued(tx)) {
    // Check before taking a nonce: a request that cannot pay must not hold up the wallet's later nonces.
    const plan = await planTx(tx, chain, deps);
    if ('blocked' in plan) return block(tx, plan.blocked, deps);
    planned = plan;
    const queued = tx;
    tx = await deps.store.allocateNonce(queued, () => chain.minedNonce(queued.wallet.address), deps.clock());
    await deps.crash?.('after_nonce', tx);
  }

  if (awaitsSignature(tx)) {
    const nonce = tx.nonce;
    if (nonce === undefined) throw new Error(`${tx.requestId} is allocated without a nonce`);
    const plan = planned ?? (await planTx(tx, chain, deps));
    if ('blocked' in plan) return block(tx, plan.blocked, deps);
    const attempt = await signAttempt(tx, nonce, plan.gasLimit, plan.fees, chain, deps);
    await deps.crash?.('after_sign', tx);
    tx = await apply(tx, { type: 'signed', attempt }, deps);
    await deps.crash?.('after_persist', tx);
  }

  if (isInFlight(tx)) {
    const attempt = currentAttempt(tx);
    if (!attempt) throw new Error(`${tx.requestId} is ${tx.status} without a signed transaction`);
    const outcome = await chain.broadcast(attempt.raw);
    if (outcome.kind === 'insufficient_funds') return awaitsBroadcast(tx) ? block(tx, 'insufficient_gas', deps) : tx;
    await deps.crash?.('after_broadcast', tx);
    if (awaitsBroadcast(tx)) tx = await apply(tx, { type: 'broadcast' }, deps);
  }
  return tx;
}

/** Cancels a request that has not been signed; its nonce (if any) goes to the wallet's free-list. */
export async function cancelChainTx(requestId: string, deps: Pick<ChainTxDeps, 'store' | 'clock'>): Promise<ChainTx> {
  for (let round = 0; ; round++) {
    const tx = await deps.store.get(requestId);
    if (!tx) throw new NotFoundError(`No chain-tx request ${requestId}`);
    try {
      return await apply(tx, { type: 'cancel' }, deps);
    } catch (error) {
      if (!lostRace(error) || round >= 20) throw error;
    }
  }
}
