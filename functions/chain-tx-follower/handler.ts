import type { Context, ScheduledEvent } from 'aws-lambda';
import { followChainTxs } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import type { FollowStats } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { chainTxNetworks, defaultChainTxDeps } from '../../shared/usecases/chain-tx/runtime.js';

/** Seconds kept free at the end of the invocation. */
const MARGIN_MS = 10_000;

/**
 * Scheduled every minute: follows every configured network's in-flight chain transactions (receipts,
 * confirmations, fee bumps, requests left queued) for most of the invocation, one follower per network
 * (a DynamoDB lease; a second invocation finds it held and returns).
 */
export async function handler(_event: ScheduledEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<Record<string, FollowStats | null>> {
  const deps = defaultChainTxDeps();
  const remaining = context?.getRemainingTimeInMillis() ?? 60_000;
  const until = new Date(Date.now() + Math.max(0, remaining - MARGIN_MS));
  const networks = chainTxNetworks();
  const results = await Promise.all(networks.map((network) => followChainTxs(network, deps, { until, pollMs: 2000 })));
  return Object.fromEntries(networks.map((n, i) => [n, results[i] ?? null]));
}
