/**
 * Call data of the forwarder factory (contracts/ForwarderFactory.sol) as the sweep use cases ask for it, so that
 * no use case encodes ABI itself: `deployAndFlush(salts, token)` sweeps a token from the forwarders of these salts
 * (deploying those not deployed yet), `flushNative(salts)` their native coin. The TVM takes the same call data.
 */
import { Interface } from 'ethers';
import { FORWARDER_FACTORY_ABI } from './abi.js';
import type { SweepCalls } from '../../usecases/payments/ports.js';

const factoryInterface = new Interface(FORWARDER_FACTORY_ABI);

/** The factory call that sweeps `salts`' forwarders: of `token` (a 0x-hex contract), or of the native coin (null). */
export function sweepCallData(request: { readonly token: string | null; readonly salts: readonly string[] }): string {
  return request.token
    ? factoryInterface.encodeFunctionData('deployAndFlush', [[...request.salts], request.token])
    : factoryInterface.encodeFunctionData('flushNative', [[...request.salts]]);
}

/** The sweep use cases' `SweepCalls` port. */
export const factoryCalls: SweepCalls = { sweep: sweepCallData };
