import { withdrawalRoutes } from '../../functions/withdrawals/routes.js';
import { config } from '../../shared/config/config.js';
import { createApi } from '../../shared/http/pipeline.js';
import { withdrawalsRuntime } from '../../shared/runtime/withdrawals.js';
import { payoutCalls } from '../../shared/chain/evm/batch-payout.js';
import type { ServedNetworks } from '../../shared/domain/currencies.js';
import type { BatcherDeps } from '../../shared/usecases/withdrawals/ports.js';
import { CHAIN_NETWORKS, serving } from './fakes/payments.js';

/**
 * The withdrawal batcher as the worker wires it against the configured table, with the parts a test decides:
 * the hot wallet, the chain-tx engine, the token contracts, the stage, the clock and the networks it sends on
 * (default: every network a chain adapter exists for); the call data are the real encoders (`payoutCalls`) unless told.
 */
export function batcherDeps(
  parts: Pick<BatcherDeps, 'wallet' | 'chainTx' | 'tokenContract'> & {
    readonly calls?: BatcherDeps['calls'];
    readonly stage?: string;
    readonly now?: () => Date;
    readonly served?: ServedNetworks;
  },
): BatcherDeps {
  const runtime = withdrawalsRuntime(config());
  return {
    ...runtime,
    wallet: parts.wallet,
    chainTx: parts.chainTx,
    tokenContract: parts.tokenContract,
    served: parts.served ?? serving(CHAIN_NETWORKS),
    settings: { ...runtime.settings, stage: parts.stage ?? 'test' },
    clock: { now: parts.now ?? (() => new Date()) },
    log: { error: () => undefined },
    calls: parts.calls ?? payoutCalls,
  };
}

/**
 * The withdrawals Lambda wired from the current configuration, sending on every network a chain adapter exists
 * for (`served` decided by the test, as `parseConfig` of a full deployment would).
 */
export function withdrawalsApi(served: ServedNetworks = serving(CHAIN_NETWORKS)) {
  return createApi(withdrawalRoutes, { ...withdrawalsRuntime(config()), served });
}
