import type { Context, ScheduledEvent } from 'aws-lambda';
import { config } from '../../shared/config/config.js';
import { followChainTxs } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import type { FollowStats } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { chainTxNetworks, defaultChainTxDeps, defaultHotWallet } from '../../shared/usecases/chain-tx/runtime.js';
import type { HotWalletDeps } from '../../shared/usecases/monitoring/hot-wallet.js';
import { reportHotWallet } from '../../shared/usecases/monitoring/hot-wallet.js';

/** Seconds kept free at the end of the invocation. */
const MARGIN_MS = 10_000;

function hotWalletDeps(): HotWalletDeps {
  const deps = defaultChainTxDeps();
  return {
    address: async () => (await defaultHotWallet()).address,
    balance: (network, address) => deps.chain(network).balance(address),
    minimums: config().HOT_WALLET_MIN_BALANCE,
  };
}

/**
 * Scheduled every minute: follows every configured network's in-flight chain transactions (receipts,
 * confirmations, fee bumps, requests left queued) for most of the invocation, one follower per network
 * (a DynamoDB lease; a second invocation finds it held and returns). Once per invocation it also prints the
 * hot wallet's balance per network (shared/usecases/monitoring/hot-wallet.ts), which never fails the run.
 */
export async function handler(_event: ScheduledEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<Record<string, FollowStats | null>> {
  const deps = defaultChainTxDeps();
  const remaining = context?.getRemainingTimeInMillis() ?? 60_000;
  const until = new Date(Date.now() + Math.max(0, remaining - MARGIN_MS));
  const networks = chainTxNetworks();
  const wallet = Promise.resolve()
    .then(() => reportHotWallet(networks, hotWalletDeps()))
    .catch((error: unknown) => {
      console.error(JSON.stringify({ level: 'error', msg: 'hot wallet metrics failed', error: String(error) }));
    });
  const results = await Promise.all(networks.map((network) => followChainTxs(network, deps, { until, pollMs: 2000 })));
  // A balance read still hanging at the deadline (an RPC that never answers) does not hold the invocation.
  await Promise.race([wallet, new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, until.getTime() - Date.now())).unref())]);
  return Object.fromEntries(networks.map((n, i) => [n, results[i] ?? null]));
}
