import { CHAIN_TX_PURPOSES } from '../../domain/events.js';
import { Interface } from 'ethers';
import { NETWORKS } from '../../domain/currencies.js';
import { FORWARDER_FACTORY_ABI } from '../../chain/evm/abi.js';
import { tronAddressToEvmHex } from '../../chain/tron/create2.js';
import { requestChainTx } from '../chain-tx/request-chain-tx.js';
import type { ChainTxDeps } from '../chain-tx/deps.js';
import type { SweepOutcome, SweepPort, SweepRequest } from './settle.js';

/**
 * A SweepPort through the chain-transaction engine: the factory call (`deployAndFlush` / `flushNative`) is
 * requested with the sweep reference (`payment:<tenant>:<id>`); the engine signs it with the hot wallet's KMS
 * key, persists it before broadcasting and follows it. Its `chain_tx.confirmed` / `chain_tx.failed` events
 * reach the chain-results worker (functions/chain-results), which completes the payment or puts it back to `confirmed`.
 */
const factoryInterface = new Interface(FORWARDER_FACTORY_ABI);

export function sweepCallData(request: Pick<SweepRequest, 'token' | 'salts'>): string {
  return request.token
    ? factoryInterface.encodeFunctionData('deployAndFlush', [[...request.salts], request.token])
    : factoryInterface.encodeFunctionData('flushNative', [[...request.salts]]);
}

export function engineSweep(
  factoryOf: (network: string) => string | undefined,
  wallet: () => Promise<{ keyId: string; address: string }>,
  deps: Pick<ChainTxDeps, 'store' | 'clock'>,
): SweepPort {
  return {
    async requestSweep(request: SweepRequest): Promise<SweepOutcome> {
      const configured = factoryOf(request.network);
      if (!configured) throw new Error(`No forwarder factory for ${request.network}`);
      // Inside the TVM (call data, the engine's request) TRON addresses are their 20-byte body.
      const tron = NETWORKS[request.network as keyof typeof NETWORKS]?.family === 'tron';
      const factory = tron ? tronAddressToEvmHex(configured) : configured;
      const token = request.token && tron ? tronAddressToEvmHex(request.token) : request.token;
      const [, tenantId = 'platform'] = request.reference.split(':');
      await requestChainTx(
        {
          network: request.network,
          wallet: await wallet(),
          to: factory,
          data: sweepCallData({ ...request, token }),
          purpose: CHAIN_TX_PURPOSES.sweep,
          reference: request.reference,
          tenantId,
        },
        deps,
      );
      return { status: 'submitted' };
    },
  };
}
