import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { wakeableWorker } from '../../shared/runtime/worker.js';
import type { FollowStats } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { runFollower, wokenFollowerNetworks } from '../../shared/usecases/chain-tx/follow-chain-txs.js';

const runtime = chainTxRuntime();

/** Seconds kept free at the end of the invocation. */
const MARGIN_MS = 10_000;

/**
 * Scheduled every minute: follows every configured network's in-flight chain transactions (receipts,
 * confirmations, fee bumps, requests left queued) for most of the invocation, one follower per network
 * (a DynamoDB lease: a woken invocation that finds it held returns, a scheduled one waits for it), and prints the hot wallet's balance
 * per network once (shared/usecases/monitoring/hot-wallet.ts). Also woken by the follower-wake queue when a chain
 * transaction is requested (the event router sends its `chain_tx.requested`): that network's follower starts at once
 * unless a run already holds it, instead of up to a minute later.
 */
export const handler = wakeableWorker('chain-tx-follower', (scheduled, woken): Promise<Record<string, FollowStats | null>> => {
  const until = new Date(Date.now() + scheduled.budgetMs(MARGIN_MS));
  return runFollower({
    networks: runtime.networks,
    deps: runtime.deps,
    hotWallet: runtime.hotWalletDeps,
    until,
    ...(woken ? { woken: wokenFollowerNetworks(woken) } : {}),
  });
});
