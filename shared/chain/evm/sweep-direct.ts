import { Contract } from 'ethers';
import type { Signer } from 'ethers';
import type { SweepOutcome, SweepPort, SweepRequest } from '../../usecases/payments/ports.js';
import { FORWARDER_FACTORY_ABI } from './abi.js';

/**
 * The sweep port's direct EVM adapter: a SweepPort that calls the factory directly with the hot-wallet signer (the KMS signer) and waits for the
 * receipt: `deployAndFlush(salts, token)` for a token, `flushNative(salts)` for the native coin, every deposit of a
 * batch in the one call. Used locally and in tests until sweeps go through the chain-transaction engine (which
 * persists the signed transaction and manages nonces); the payment flow is the same either way. It keeps no record
 * of a request, so it cannot tell what a batch carried (no `carried`): a pass that dies while it waits leaves its
 * payments `sending`, for the stuck-sweep alarm.
 */
export function directFactorySweep(factoryOf: (network: string) => string | undefined, signer: Signer, maxSalts?: number): SweepPort {
  return {
    ...(maxSalts === undefined ? {} : { maxSalts }),
    async requestSweep(request: SweepRequest): Promise<SweepOutcome> {
      const factory = factoryOf(request.network);
      if (!factory) throw new Error(`No forwarder factory for ${request.network}`);
      const contract = new Contract(factory, FORWARDER_FACTORY_ABI, signer);
      const tx = request.token
        ? await contract.getFunction('deployAndFlush')(request.salts, request.token)
        : await contract.getFunction('flushNative')(request.salts);
      const receipt = await (tx as { wait(): Promise<{ status: number | null; hash: string } | null> }).wait();
      if (!receipt || receipt.status !== 1) throw new Error(`Sweep ${request.reference} failed on chain`);
      return { status: 'done', txHash: receipt.hash };
    },
  };
}
