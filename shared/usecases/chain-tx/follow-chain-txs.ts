import { randomUUID } from 'node:crypto';
import type { ChainTx } from '../../domain/chain-tx.js';
import { awaitsBroadcast, currentAttempt, isBumpDue, isInFlight, trackedHashes, waitsForGas } from '../../domain/chain-tx.js';
import { bumpFees } from '../../domain/chain-tx-fees.js';
import { EVENTS, routedEventsIn } from '../../domain/events.js';
import { emitMetrics, METRIC_NAMES, METRIC_NAMESPACES, NETWORK_DIMENSION } from '../../observability/metrics.js';
import { apply, block, lostRace } from './changes.js';
import type { ChainTxDeps, TxReceipt } from './ports.js';
import { processChainTx, signAttempt } from './process-chain-tx.js';
import { followBtc, isBtcNetwork } from './btc.js';
import { followTron, isTronNetwork } from './tron.js';
import type { HotWalletDeps } from '../monitoring/hot-wallet.js';
import { reportHotWallet } from '../monitoring/hot-wallet.js';
import { errorField, logger } from '../../observability/logger.js';

export interface FollowStats {
  confirmed: number;
  reverted: number;
  failed: number;
  bumped: number;
  rebroadcast: number;
  processed: number;
  waitingForGas: number;
}

const emptyStats = (): FollowStats => ({ confirmed: 0, reverted: 0, failed: 0, bumped: 0, rebroadcast: 0, processed: 0, waitingForGas: 0 });

async function minedReceipt(tx: ChainTx, deps: ChainTxDeps): Promise<TxReceipt | undefined> {
  const chain = deps.chain(tx.network);
  for (const hash of trackedHashes(tx)) {
    const receipt = await chain.receipt(hash);
    if (receipt) return receipt;
  }
  return undefined;
}

/**
 * One look at an in-flight request (signed or pending):
 * 1. one of its tracked hashes is mined with enough confirmations -> `confirmed` (or `reverted`), with the
 *    `chain_tx.confirmed` / `chain_tx.failed` outbox event in the same transaction; mined with fewer -> wait;
 * 2. none mined but the wallet's mined nonce has passed the request's -> another transaction took the nonce:
 *    `failed` (`nonce_consumed`) with `chain_tx.failed` (never happens while the engine alone owns the wallet);
 * 3. `signed` (persisted, maybe never sent) -> broadcast the same bytes;
 * 4. pending longer than `bumpAfterSeconds` -> re-sign with the same nonce and higher fees, persist the new
 *    hash (added to the tracked ones) BEFORE broadcasting it; whichever hash is mined wins (one nonce: once);
 * 5. otherwise re-broadcast the current bytes (a node may have dropped them from its pool).
 */
export async function followChainTx(start: ChainTx, deps: ChainTxDeps, stats: FollowStats = emptyStats()): Promise<ChainTx> {
  let tx = start;
  if (!isInFlight(tx)) return tx;
  if (isTronNetwork(tx.network)) {
    const followed = await followTron(tx, deps);
    if (followed.outcome === 'confirmed') stats.confirmed++;
    else if (followed.outcome === 'reverted') stats.reverted++;
    else if (followed.outcome === 'resigned') stats.bumped++;
    else if (followed.outcome === 'rebroadcast') stats.rebroadcast++;
    return followed.tx;
  }
  if (isBtcNetwork(tx.network)) {
    const followed = await followBtc(tx, deps);
    if (followed.outcome === 'confirmed') stats.confirmed++;
    else if (followed.outcome === 'replaced') stats.bumped++;
    else if (followed.outcome === 'rebroadcast') stats.rebroadcast++;
    return followed.tx;
  }
  const chain = deps.chain(tx.network);
  const nonce = tx.nonce;
  if (nonce === undefined) throw new Error(`${tx.requestId} is in flight without a nonce`);

  // The wallet's nonce as of `confirmations` deep, read BEFORE the receipts: a hash of ours mined in between
  // is then found by the receipts, never mistaken for a foreign transaction.
  const head = await chain.blockNumber();
  const minedNonce = await chain.minedNonce(tx.wallet.address, Math.max(0, head - deps.settings.confirmations + 1));
  const receipt = await minedReceipt(tx, deps);
  if (receipt) {
    const confirmations = (await chain.blockNumber()) - receipt.blockNumber + 1;
    if (confirmations < deps.settings.confirmations) return tx;
    tx = await apply(
      tx,
      { type: 'mined', mined: { hash: receipt.hash, blockNumber: receipt.blockNumber, status: receipt.status, gasUsed: receipt.gasUsed } },
      deps,
    );
    if (receipt.status === 1) stats.confirmed++;
    else stats.reverted++;
    return tx;
  }
  if (minedNonce > nonce) {
    tx = await apply(tx, { type: 'dropped', failure: 'nonce_consumed' }, deps);
    stats.failed++;
    return tx;
  }

  const attempt = currentAttempt(tx);
  if (!attempt) throw new Error(`${tx.requestId} is ${tx.status} without a signed transaction`);
  if (awaitsBroadcast(tx)) {
    const outcome = await chain.broadcast(attempt.raw);
    if (outcome.kind === 'insufficient_funds') {
      stats.waitingForGas++;
      return block(tx, 'insufficient_gas', deps);
    }
    stats.rebroadcast++;
    return apply(tx, { type: 'broadcast' }, deps);
  }
  if (isBumpDue(tx, deps.clock(), deps.settings.bumpAfterSeconds)) {
    const fees = bumpFees(attempt.fees, await chain.feeSuggestion(), deps.settings.caps, deps.settings.bumpPermille);
    if (fees !== null) {
      const bumped = await signAttempt(tx, nonce, attempt.gasLimit, fees, chain, deps);
      await deps.crash?.('after_bump_sign', tx);
      tx = await apply(tx, { type: 'bumped', attempt: bumped }, deps);
      await deps.crash?.('after_bump_persist', tx);
      const outcome = await chain.broadcast(bumped.raw);
      stats.bumped++;
      // Refused for funds: stays `signed` with the new bytes; the next pass sends them again.
      if (outcome.kind === 'insufficient_funds') return apply(tx, { type: 'blocked', reason: 'insufficient_gas' }, deps);
      return apply(tx, { type: 'broadcast' }, deps);
    }
  }
  await chain.broadcast(attempt.raw);
  stats.rebroadcast++;
  return tx;
}

/** One pass over a network's open requests. */
export async function followOnce(network: string, deps: ChainTxDeps): Promise<FollowStats> {
  return (await followPass(network, deps)).stats;
}

/** One pass, and how many open requests it listed (none: nothing for the loop to wait for). */
async function followPass(network: string, deps: ChainTxDeps): Promise<{ stats: FollowStats; listed: number }> {
  const stats = emptyStats();
  const open = await deps.store.listOpen(network);
  const now = deps.clock().getTime();
  for (const tx of open) {
    try {
      if (isInFlight(tx)) {
        await followChainTx(tx, deps, stats);
      } else if (tx.reason !== undefined || now - Date.parse(tx.updatedAt) >= deps.settings.retryQueuedAfterSeconds * 1000) {
        const after = await processChainTx(tx.requestId, deps);
        stats.processed++;
        if (waitsForGas(after)) stats.waitingForGas++;
      }
    } catch (error) {
      // Another processor moved it: next pass. Anything else is logged once here and the pass goes on.
      if (!lostRace(error)) {
        logger.error('chain-tx follow failed', { request_id: tx.requestId, error: errorField(error) });
      }
    }
  }
  return { stats, listed: open.length };
}

export interface FollowOptions {
  /** Stop looping at this time (the Lambda's deadline minus a margin). */
  readonly until: Date;
  readonly pollMs?: number;
  readonly owner?: string;
  readonly leaseSeconds?: number;
  /**
   * A woken run (a chain transaction just requested, functions/chain-tx-follower): a network whose lease is held is
   * left to its holder, which loops while the network has open requests. Unset: a scheduled run, which asks again
   * for a held lease every `leaseRetryMs` while its time lasts.
   */
  readonly woken?: boolean;
  /** Default `FOLLOWER_LEASE_RETRY_MS`. */
  readonly leaseRetryMs?: number;
}

/**
 * A scheduled run that finds its network's lease held asks again this often until its deadline, and goes on from the
 * holder's last pass: the holder may be the previous run ending its minute, or a woken run that started between two
 * scheduled ones and would otherwise leave the rest of this minute unfollowed.
 */
export const FOLLOWER_LEASE_RETRY_MS = 2_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The follower's loop for one network: holds the network's lease (one follower at a time), runs a pass every
 * `pollMs` until `until` while the network has open requests, and prints the insufficient-gas metric (CloudWatch
 * EMF) when requests wait for gas. A pass that lists no open request ends the loop: nothing is in flight, and the
 * next request wakes a run (follower-wake) or is followed from the next scheduled run. The lease is renewed only
 * once half of it has passed (not on every pass: each renewal is a write). A network with no open request is one
 * read: no lease, no pass. Returns null when another follower keeps the lease (`takeLease`).
 */
export async function followChainTxs(network: string, deps: ChainTxDeps, options: FollowOptions): Promise<FollowStats | null> {
  const owner = options.owner ?? randomUUID();
  const leaseSeconds = options.leaseSeconds ?? 90;
  const total = emptyStats();
  // Nothing open: nothing to follow, and no lease taken (a write) for it.
  if ((await deps.store.listOpen(network)).length === 0) return total;
  if (!(await takeLease(network, owner, leaseSeconds, deps, options))) return null;
  let leased = deps.clock().getTime();
  try {
    for (;;) {
      const { stats, listed } = await followPass(network, deps);
      for (const key of Object.keys(total) as (keyof FollowStats)[]) total[key] += stats[key];
      emitGasMetric(network, stats.waitingForGas);
      if (listed === 0) break;
      if (deps.clock().getTime() + (options.pollMs ?? 1000) >= options.until.getTime()) break;
      await sleep(options.pollMs ?? 1000);
      if (deps.clock().getTime() - leased >= (leaseSeconds * 1000) / 2) {
        leased = deps.clock().getTime();
        if (!(await deps.store.acquireLease(network, owner, deps.clock(), leaseSeconds))) break;
      }
    }
  } finally {
    await deps.store.releaseLease(network, owner);
  }
  return total;
}

/**
 * The network's lease for this run. Woken while a run loops (the usual case while requests keep coming): a read, not
 * a refused write, and the holder keeps the network. Scheduled: asked again every `leaseRetryMs` until `until`.
 */
async function takeLease(network: string, owner: string, leaseSeconds: number, deps: ChainTxDeps, options: FollowOptions): Promise<boolean> {
  if (options.woken && (await deps.store.leaseHeld(network, deps.clock()))) return false;
  const retryMs = options.leaseRetryMs ?? FOLLOWER_LEASE_RETRY_MS;
  const budgetMs = options.until.getTime() - Date.now();
  for (let asked = 1; ; asked++) {
    if (await deps.store.acquireLease(network, owner, deps.clock(), leaseSeconds)) return true;
    if (options.woken || asked * retryMs >= budgetMs || Date.now() + retryMs >= options.until.getTime()) return false;
    await sleep(retryMs);
  }
}

/**
 * The networks a woken run follows: those of the chain transactions whose request woke it (the routed
 * `chain_tx.requested` events of the follower-wake queue). A message that is not such an event wakes nothing (it is
 * not retried).
 */
export function wokenFollowerNetworks(bodies: readonly string[]): string[] {
  return [...new Set(routedEventsIn(bodies, [EVENTS.chainTxRequested]).map((event) => event.payload.network))];
}

/**
 * Printed only while requests wait for gas (every pass, so a few lines a minute at most): the alarm treats a
 * missing value as "nobody waiting". Per network and, for the alarm, across networks (no dimension).
 */
function emitGasMetric(network: string, waiting: number): void {
  if (waiting === 0) return;
  try {
    emitMetrics(METRIC_NAMESPACES.chainTx, { [NETWORK_DIMENSION]: network }, [{ name: METRIC_NAMES.insufficientGas, value: waiting, aggregate: true }]);
  } catch (error) {
    logger.error('insufficient-gas metric not emitted', { network, error: errorField(error) });
  }
}

export interface WalletHealth {
  readonly network: string;
  readonly address: string;
  /** Native balance in wei (decimal string). */
  readonly balance: string;
  /** Open requests of this wallet waiting because it cannot pay for gas. */
  readonly insufficientGas: number;
  readonly requestIds: string[];
  /** The alarm metric to raise when `insufficientGas > 0`. */
  readonly metric: typeof METRIC_NAMES.insufficientGas;
}

/** The wallet's native balance and the requests waiting for gas. */
export async function walletHealth(network: string, address: string, deps: Pick<ChainTxDeps, 'store' | 'chain'>): Promise<WalletHealth> {
  const open = await deps.store.listOpen(network);
  const waiting = open.filter((tx) => tx.wallet.address.toLowerCase() === address.toLowerCase() && waitsForGas(tx));
  const balance = await deps.chain(network).balance(address);
  return {
    network,
    address,
    balance: balance.toString(),
    insufficientGas: waiting.length,
    requestIds: waiting.map((tx) => tx.requestId),
    metric: METRIC_NAMES.insufficientGas,
  };
}

/**
 * The chain-tx-follower worker's run: every network followed under its lease until `until`, and the hot
 * wallet's balance reported once alongside. The report never fails the run, and one still hanging at `until`
 * (an RPC that never answers) does not hold it.
 */
export async function runFollower(input: {
  readonly networks: readonly string[];
  readonly deps: ChainTxDeps;
  readonly hotWallet: HotWalletDeps;
  readonly until: Date;
  readonly pollMs?: number;
  /** A woken run (`FollowOptions.woken`): only these of `networks` (`wokenFollowerNetworks`). Unset: a scheduled run. */
  readonly woken?: readonly string[];
}): Promise<Record<string, FollowStats | null>> {
  const woken = input.woken;
  const networks = woken ? input.networks.filter((n) => woken.includes(n)) : input.networks;
  const report = Promise.resolve()
    .then(() => reportHotWallet(networks, input.hotWallet))
    .catch((error: unknown) => {
      logger.error('hot wallet metrics failed', { error: errorField(error) });
    });
  const results = await Promise.all(
    networks.map((network) => followChainTxs(network, input.deps, { until: input.until, pollMs: input.pollMs ?? 2000, woken: woken !== undefined })),
  );
  await Promise.race([report, new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, input.until.getTime() - Date.now())).unref())]);
  return Object.fromEntries(networks.map((n, i) => [n, results[i] ?? null]));
}
