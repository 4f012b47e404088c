import { CHAIN_TX_PURPOSES } from '../../domain/events.js';
import { NETWORKS } from '../../domain/currencies.js';
import { tronAddressToEvmHex } from '../../domain/chain-addresses.js';
import { canCancel, isCancelled } from '../../domain/chain-tx.js';
import { cancelChainTx } from '../chain-tx/process-chain-tx.js';
import { claimedRequest, requestChainTx } from '../chain-tx/request-chain-tx.js';
import type { ChainTxDeps } from '../chain-tx/ports.js';
import type { SweepCalls, SweepOutcome, SweepPort, SweepRequest } from './ports.js';
import { isBatchSweepReference } from './settle.js';

/**
 * A SweepPort through the chain-transaction engine: the factory call (`deployAndFlush` / `flushNative`) is
 * requested with the sweep reference (a batch's `sweep:<uuid>`, its payments as the request's items; a custody
 * deposit's `custody:<tenant>:<deposit>`); the engine signs it with the hot wallet's KMS key, persists it before
 * broadcasting and follows it. Its `chain_tx.confirmed` / `chain_tx.failed` events reach the chain-results worker
 * (functions/chain-results), which completes the payments or puts them back to `confirmed`.
 */
/** The tenant a sweep's chain-tx events are written for: a batch is the platform's, a single sweep its tenant's. */
function tenantOf(reference: string): string {
  if (isBatchSweepReference(reference)) return 'platform';
  const [, tenantId] = reference.split(':');
  return tenantId || 'platform';
}

export interface EngineSweepDeps {
  /** The forwarder factory of a network, as configured (a TRON one in Base58Check). */
  factoryOf(network: string): string | undefined;
  /** The hot wallet that sends the sweeps. */
  wallet(): Promise<{ keyId: string; address: string }>;
  /** The engine's requests. */
  readonly engine: Pick<ChainTxDeps, 'store' | 'clock'>;
  /** The factory's call data. */
  readonly calls: SweepCalls;
  /** The most deposits one sweep takes. */
  readonly maxSalts?: number;
}

export function engineSweep({ factoryOf, wallet, engine: deps, calls, maxSalts }: EngineSweepDeps): SweepPort {
  /** The factory of a network as the engine takes it: inside the TVM, TRON addresses are their 20-byte body. */
  const factoryFor = (network: string): { factory: string; tron: boolean } => {
    const configured = factoryOf(network);
    if (!configured) throw new Error(`No forwarder factory for ${network}`);
    const tron = NETWORKS[network as keyof typeof NETWORKS]?.family === 'tron';
    return { factory: tron ? tronAddressToEvmHex(configured) : configured, tron };
  };
  return {
    ...(maxSalts === undefined ? {} : { maxSalts }),
    async requestSweep(request: SweepRequest): Promise<SweepOutcome> {
      const { factory, tron } = factoryFor(request.network);
      const token = request.token && tron ? tronAddressToEvmHex(request.token) : request.token;
      await requestChainTx(
        {
          network: request.network,
          wallet: await wallet(),
          to: factory,
          data: calls.sweep({ token, salts: request.salts }),
          purpose: CHAIN_TX_PURPOSES.sweep,
          reference: request.reference,
          ...(request.items ? { items: [...request.items] } : {}),
          tenantId: tenantOf(request.reference),
        },
        deps,
      );
      return { status: 'submitted' };
    },

    async carried(network: string, reference: string): Promise<readonly string[]> {
      // Never requested: the reference is claimed with a request that is never sent, so a pass that is late rather than
      // dead cannot send this sweep after its payments went back.
      let tx = await claimedRequest({ network, reference, purpose: CHAIN_TX_PURPOSES.sweep, wallet, to: () => factoryFor(network).factory }, deps);
      // A batch that cannot be estimated (one deposit the token refuses to move reverts the whole call) is cancelled
      // before signing: its payments go back, each to be swept alone. A sweep of one stays as it is, in sight of the
      // stuck-sweep alarm.
      if (tx.reason === 'estimate_failed' && canCancel(tx) && (tx.items?.length ?? 0) > 1)
        tx = (await cancelChainTx(tx.requestId, deps).catch(() => null)) ?? tx;
      return isCancelled(tx) ? [] : (tx.items ?? []);
    },
  };
}
