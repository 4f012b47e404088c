import { config } from '../../shared/config/config.js';
import { withdrawalsRuntime } from '../../shared/runtime/withdrawals.js';
import type { BatcherDeps } from '../../shared/usecases/withdrawals/process.js';

/**
 * The withdrawal batcher as the worker wires it against the configured table, with the parts a test decides:
 * the hot wallet, the chain-tx engine, the token contracts, the stage and the clock.
 */
export function batcherDeps(
  parts: Pick<BatcherDeps, 'wallet' | 'chainTx' | 'tokenContract'> & { readonly stage?: string; readonly now?: () => Date },
): BatcherDeps {
  const runtime = withdrawalsRuntime(config());
  return {
    ...runtime,
    wallet: parts.wallet,
    chainTx: parts.chainTx,
    tokenContract: parts.tokenContract,
    settings: { ...runtime.settings, stage: parts.stage ?? 'test' },
    clock: { now: parts.now ?? (() => new Date()) },
    log: { error: () => undefined },
  };
}
