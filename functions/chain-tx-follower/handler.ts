import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { scheduledWorker } from '../../shared/runtime/worker.js';
import type { FollowStats } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { runFollower } from '../../shared/usecases/chain-tx/follow-chain-txs.js';

const runtime = chainTxRuntime();

/** Seconds kept free at the end of the invocation. */
const MARGIN_MS = 10_000;

/**
 * Scheduled every minute: follows every configured network's in-flight chain transactions (receipts,
 * confirmations, fee bumps, requests left queued) for most of the invocation, one follower per network
 * (a DynamoDB lease; a second invocation finds it held and returns), and prints the hot wallet's balance
 * per network once (shared/usecases/monitoring/hot-wallet.ts).
 */
export const handler = scheduledWorker('chain-tx-follower', (scheduled): Promise<Record<string, FollowStats | null>> => {
  const until = new Date(Date.now() + scheduled.budgetMs(MARGIN_MS));
  return runFollower({ networks: [...runtime.networks], deps: runtime.deps, hotWallet: runtime.hotWalletDeps, until });
});
