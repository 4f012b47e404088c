import type { Context, ScheduledEvent } from 'aws-lambda';
import type { FollowStats } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { runFollower } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';

const runtime = chainTxRuntime();

/** Seconds kept free at the end of the invocation. */
const MARGIN_MS = 10_000;

/**
 * Scheduled every minute: follows every configured network's in-flight chain transactions (receipts,
 * confirmations, fee bumps, requests left queued) for most of the invocation, one follower per network
 * (a DynamoDB lease; a second invocation finds it held and returns), and prints the hot wallet's balance
 * per network once (shared/usecases/monitoring/hot-wallet.ts).
 */
export async function handler(_event: ScheduledEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<Record<string, FollowStats | null>> {
  const remaining = context?.getRemainingTimeInMillis() ?? 60_000;
  const until = new Date(Date.now() + Math.max(0, remaining - MARGIN_MS));
  return runFollower({ networks: [...runtime.networks], deps: runtime.deps, hotWallet: runtime.hotWalletDeps, until });
}
