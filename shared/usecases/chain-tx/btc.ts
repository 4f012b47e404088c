import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { ChainTx, ChainTxAttempt, ChainTxReason } from '../../domain/chain-tx.js';
import { awaitsBroadcast, currentAttempt, isFinal, isInFlight, isQueued } from '../../domain/chain-tx.js';
import { NETWORKS } from '../../domain/currencies.js';
import { apply, block } from './changes.js';
import type { HotCoin } from '../coins/ports.js';
import type { BtcBatchPlan, BtcChainPort, BtcEngineDeps, BtcPayoutOutput, BtcSpendCoin, ChainTxDeps } from './ports.js';

/**
 * The engine on Bitcoin (DESIGN sections 5 and 12): no nonces; a request pays its outputs (a batch of withdrawals,
 * `btcPayoutData`) from the hot wallet's coins in ONE transaction.
 *
 * - queued -> signed: the coins are chosen and RESERVED for the request (HotCoinStore.reserve, one transaction: no
 *   coin is ever in two batches); the transaction is built at the API's fee rate and signed (KMS, one call per
 *   input), then PERSISTED (raw, txid, fee, change, height), then broadcast (the same bytes on every retry). A
 *   crash after the reservation takes the same coins again; coins that cannot cover it (not enough, or the fee
 *   rose) leave the request queued with `insufficient_gas` (the wallet cannot pay), never half-paid; an output no
 *   transaction can carry leaves it queued with `estimate_failed` (nothing reserved).
 * - followed by txid (every tracked attempt): one in a block with enough confirmations -> confirmed: its coins
 *   spent, its change recorded as a coin (`change:<reference>`), then `chain_tx.confirmed`.
 * - still unconfirmed `replaceAfterBlocks` after its signature: REPLACED (BIP125) by a transaction spending the
 *   SAME coins (plus one more coin only when they cannot pay more) at a higher rate (at least the old + 1 sat/vB,
 *   and the old fee plus its own size at 1 sat/vB), persisted before it is broadcast. Every attempt spends every
 *   coin of the first, so any two conflict and at most one is ever mined: no output is paid twice, whichever it is.
 */
export const isBtcNetwork = (network: string): boolean => NETWORKS[network as keyof typeof NETWORKS]?.family === 'btc';

function btcOf(deps: ChainTxDeps): BtcEngineDeps {
  if (!deps.btc) throw new Error('No Bitcoin endpoint configured (BTC_API_URL)');
  return deps.btc;
}

const DATA_VERSION = 'btc-payouts/v1';

/**
 * A Bitcoin request's `data`: its outputs (address, satoshis) in the order of its `items`, as JSON in 0x-hex (a
 * request's data is hex bytes on every network). Its `wallet` is the hot wallet's key (with the key's 0x address,
 * its identity on every network) and `to` that address: the change goes back to the key's change address.
 */
export function btcPayoutData(payouts: readonly Pick<BtcPayoutOutput, 'address' | 'value'>[]): string {
  return `0x${bytesToHex(utf8ToBytes(JSON.stringify({ v: DATA_VERSION, outputs: payouts.map((p) => [p.address, p.value.toString()]) })))}`;
}

/** The outputs a Bitcoin request pays, each with its item (`items` by index; `output:<i>` when it has none). */
export function btcPayoutsOf(tx: Pick<ChainTx, 'requestId' | 'data' | 'items'>): BtcPayoutOutput[] {
  let parsed: { v?: unknown; outputs?: unknown };
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(hexToBytes(tx.data.replace(/^0x/, '')))) as typeof parsed;
  } catch {
    throw new Error(`${tx.requestId}: not a Bitcoin payout request`);
  }
  if (parsed.v !== DATA_VERSION || !Array.isArray(parsed.outputs)) throw new Error(`${tx.requestId}: not a Bitcoin payout request`);
  return (parsed.outputs as unknown[]).map((o, i) => {
    if (!Array.isArray(o) || typeof o[0] !== 'string' || typeof o[1] !== 'string' || !/^\d+$/.test(o[1])) throw new Error(`${tx.requestId}: bad output ${i}`);
    return { item: tx.items?.[i] ?? `output:${i}`, address: o[0], value: BigInt(o[1]) };
  });
}

type Outpoint = Pick<HotCoin, 'network' | 'txid' | 'vout'>;
const outpointOf = (c: Pick<HotCoin, 'txid' | 'vout'>): string => `${c.txid}:${c.vout}`;
/** Coins a replacement whose own coins cannot pay more tries to add (one of them, largest first). */
const MORE_COINS_TRIED = 5;

/**
 * The plan of a queued request over coins reserved for it: those an earlier run reserved (a crash, or another
 * processor of the same request right now), else chosen among them and the available ones, the new ones reserved.
 * Coins are never given back here, for another processor may be signing with them: one reserved but unused is
 * released when the request confirms (or, blocked, after a save that voids any concurrent signature). Otherwise why
 * the request waits, and the coins it holds: the coins cannot cover it (`insufficient_gas`), or an output can never
 * be paid (`estimate_failed`: the batcher's recovery then cancels the batch and sends its items singly).
 */
async function planQueued(
  tx: ChainTx,
  btc: BtcEngineDeps,
  feeRate: bigint,
): Promise<{ readonly plan: BtcBatchPlan } | { readonly blocked: ChainTxReason; readonly held: readonly Outpoint[] }> {
  const payouts = btcPayoutsOf(tx);
  for (let round = 0; round < 3; round++) {
    const reserved = (await btc.coins.ofBatch(tx.network, tx.reference)).filter((c) => c.state === 'reserved');
    if (reserved.length > 0) {
      const again = await btc.builder.plan({ keyId: tx.wallet.keyId, payouts, coins: reserved, feeRate, fixedInputs: true });
      if (again.ok) return { plan: again.plan };
    }
    const held = new Set(reserved.map(outpointOf));
    const available = (await btc.coins.available(tx.network, btc.maxCoins)).filter((c) => !held.has(outpointOf(c)));
    const planned = await btc.builder.plan({ keyId: tx.wallet.keyId, payouts, coins: [...reserved, ...available], feeRate });
    if (!planned.ok) return { blocked: planned.reason === 'insufficient' ? 'insufficient_gas' : 'estimate_failed', held: reserved };
    const added = planned.plan.inputs.filter((c) => !held.has(outpointOf(c))).map((c) => ({ network: tx.network, txid: c.txid, vout: c.vout }));
    if (added.length === 0 || (await btc.coins.reserve(added, tx.reference))) return { plan: planned.plan };
    // Another batch took one of them meanwhile: choose again.
  }
  throw new Error(`${tx.requestId}: the hot wallet's coins kept moving while they were reserved`);
}

async function signedAttempt(tx: ChainTx, plan: BtcBatchPlan, chain: BtcChainPort, deps: ChainTxDeps): Promise<ChainTxAttempt> {
  const btc = btcOf(deps);
  const height = await chain.tipHeight();
  const signed = await btc.builder.sign(tx.wallet.keyId, plan);
  return {
    hash: signed.txid,
    raw: signed.raw,
    fees: { type: 'btc', feeRate: plan.feeRate, fee: plan.fee, change: plan.change?.value ?? 0n },
    gasLimit: BigInt(signed.vsize),
    signedAt: deps.clock().toISOString(),
    signedAtHeight: height,
    feeShares: plan.shares.map((share) => share.toString()),
    spends: plan.inputs.map(outpointOf),
  };
}

async function broadcastCurrent(tx: ChainTx, chain: BtcChainPort, deps: ChainTxDeps): Promise<ChainTx> {
  const attempt = currentAttempt(tx);
  if (!attempt) throw new Error(`${tx.requestId} is ${tx.status} without a signed transaction`);
  await chain.broadcast(attempt.raw);
  await deps.crash?.('after_broadcast', tx);
  return awaitsBroadcast(tx) ? apply(tx, { type: 'broadcast' }, deps) : tx;
}

/** processChainTx on Bitcoin: reserve coins, build and sign, persist, broadcast. */
export async function advanceBtc(start: ChainTx, deps: ChainTxDeps): Promise<ChainTx> {
  let tx = start;
  if (isFinal(tx)) return tx;
  const btc = btcOf(deps);
  const chain = btc.chain(tx.network);
  if (isQueued(tx)) {
    const planned = await planQueued(tx, btc, await chain.feeRate());
    if ('blocked' in planned) {
      if (planned.held.length === 0) return block(tx, planned.blocked, deps);
      // Saved first (a new version: a concurrent processor's signature can no longer be persisted), then released.
      const saved = await apply(tx, { type: 'blocked', reason: planned.blocked }, deps);
      await btc.coins.release(planned.held, tx.reference);
      return saved;
    }
    const attempt = await signedAttempt(tx, planned.plan, chain, deps);
    await deps.crash?.('after_sign', tx);
    tx = await apply(tx, { type: 'signed', attempt }, deps);
    await deps.crash?.('after_persist', tx);
  }
  if (isInFlight(tx)) tx = await broadcastCurrent(tx, chain, deps);
  return tx;
}

export interface BtcFollowResult {
  readonly tx: ChainTx;
  readonly outcome: 'confirmed' | 'replaced' | 'rebroadcast' | 'waiting';
}

/**
 * The replacement of the current attempt: its coins (with one more when they cannot pay more), a higher rate; null
 * when the hot wallet cannot pay more.
 */
async function replacement(tx: ChainTx, attempt: ChainTxAttempt, chain: BtcChainPort, deps: ChainTxDeps): Promise<ChainTxAttempt | null> {
  const btc = btcOf(deps);
  if (attempt.fees.type !== 'btc') throw new Error(`${tx.requestId}: a Bitcoin attempt without Bitcoin fees`);
  // Exactly the coins the attempt spends: every attempt of the request conflicts with every other.
  const spends = new Set(attempt.spends ?? []);
  const coins = (await btc.coins.ofBatch(tx.network, tx.reference)).filter((c) => spends.has(outpointOf(c)));
  if (coins.length === 0 || coins.length !== spends.size || coins.some((c) => c.state !== 'reserved')) {
    throw new Error(`${tx.requestId}: the coins of its transaction are not all reserved for it`);
  }
  const suggested = await chain.feeRate();
  const feeRate = suggested > attempt.fees.feeRate ? suggested : attempt.fees.feeRate + 1n;
  const payouts = btcPayoutsOf(tx);
  const replacesFee = attempt.fees.fee;
  const plan = (inputs: readonly BtcSpendCoin[]) =>
    btc.builder.plan({ keyId: tx.wallet.keyId, payouts, coins: inputs, feeRate, fixedInputs: true, replacesFee });
  const same = await plan(coins);
  if (same.ok) return signedAttempt(tx, same.plan, chain, deps);
  // Its coins cannot pay more (its change is too small, or none): one more coin of the hot wallet joins them (a
  // confirmed one, as BIP125 allows). The replacement still spends every coin of the attempt: it conflicts with it.
  const unused = (await btc.coins.ofBatch(tx.network, tx.reference)).filter((c) => c.state === 'reserved' && !spends.has(outpointOf(c)));
  const candidates = [...unused, ...(await btc.coins.available(tx.network, MORE_COINS_TRIED))].slice(0, MORE_COINS_TRIED);
  for (const extra of candidates) {
    const planned = await plan([...coins, extra]);
    if (!planned.ok) continue;
    if (extra.state === 'available' && !(await btc.coins.reserve([{ network: tx.network, txid: extra.txid, vout: extra.vout }], tx.reference))) return null;
    return signedAttempt(tx, planned.plan, chain, deps);
  }
  return null;
}

/**
 * followChainTx on Bitcoin: confirmed (coins spent, change recorded, then the request) once one tracked txid has
 * the configured confirmations; replaced when due; else the current bytes are sent again.
 */
export async function followBtc(start: ChainTx, deps: ChainTxDeps): Promise<BtcFollowResult> {
  let tx = start;
  if (!isInFlight(tx)) return { tx, outcome: 'waiting' };
  const btc = btcOf(deps);
  const chain = btc.chain(tx.network);
  const tip = await chain.tipHeight();
  for (const attempt of tx.attempts) {
    const status = await chain.status(attempt.hash);
    if (status.state !== 'confirmed') continue;
    if (tip - status.blockNumber + 1 < btc.confirmations) return { tx, outcome: 'waiting' };
    if (attempt.fees.type !== 'btc') throw new Error(`${tx.requestId}: a Bitcoin attempt without Bitcoin fees`);
    // The coins first (both idempotent): a crash before the request's save does them again on the next look.
    // What it spent is spent; a coin reserved for it but not spent (a concurrent run's choice) is available again.
    const spends = attempt.spends ? new Set(attempt.spends) : null;
    const spentHere = (c: Pick<HotCoin, 'txid' | 'vout'>): boolean => spends === null || spends.has(outpointOf(c));
    const held = await btc.coins.ofBatch(tx.network, tx.reference);
    await btc.coins.markSpent(held.filter(spentHere), tx.reference);
    const unused = held.filter((c) => !spentHere(c) && c.state === 'reserved');
    if (unused.length > 0) await btc.coins.release(unused, tx.reference);
    if (attempt.fees.change > 0n) {
      await btc.coins.add([
        {
          network: tx.network,
          txid: attempt.hash,
          vout: btcPayoutsOf(tx).length,
          value: attempt.fees.change,
          tag: btc.builder.changeTag,
          source: `change:${tx.reference}`,
        },
      ]);
    }
    tx = await apply(tx, { type: 'mined', mined: { hash: attempt.hash, blockNumber: status.blockNumber, status: 1, gasUsed: attempt.fees.fee } }, deps);
    return { tx, outcome: 'confirmed' };
  }
  const attempt = currentAttempt(tx);
  if (!attempt) throw new Error(`${tx.requestId} is ${tx.status} without a signed transaction`);
  if (awaitsBroadcast(tx)) return { tx: await broadcastCurrent(tx, chain, deps), outcome: 'rebroadcast' };
  if (attempt.signedAtHeight !== undefined && tip - attempt.signedAtHeight >= btc.replaceAfterBlocks) {
    const next = await replacement(tx, attempt, chain, deps);
    if (next) {
      await deps.crash?.('after_bump_sign', tx);
      tx = await apply(tx, { type: 'bumped', attempt: next }, deps);
      await deps.crash?.('after_bump_persist', tx);
      return { tx: await broadcastCurrent(tx, chain, deps), outcome: 'replaced' };
    }
  }
  await chain.broadcast(attempt.raw);
  return { tx, outcome: 'rebroadcast' };
}
