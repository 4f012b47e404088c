import type { Config } from '../config/config.js';
import { depositAddress, forwarderImplementationAddress, saltFor } from '../chain/evm/create2.js';
import { tronDepositAddress } from '../chain/tron/create2.js';
import { NETWORKS } from '../domain/currencies.js';
import type { DepositAddressSource } from '../usecases/payments/ports.js';

/**
 * Deposit addresses from the forwarder factories, for payments and custody accounts alike; a module of its own so
 * that custody's Lambda takes them without the payments' runtime.
 */

/** The forwarder factory of a network in this deployment. */
export const factoryOf = (cfg: Config, network: string): string | undefined => cfg.FORWARDER_FACTORIES[network] || undefined;

/**
 * Deposit addresses from the forwarder factories: CREATE2 on EVM networks (the same salt on every network), and
 * on TRON with `FORWARDER_IMPLEMENTATION_TRX` (base58) and TRON's CREATE2 preimage (0x41). Which networks are
 * served is `servedNetworks` (shared/runtime/currencies.ts); a network without a factory here is never served.
 */
export function factoryAddresses(cfg: Config): DepositAddressSource {
  return {
    async addressFor(network, tenantId, paymentId) {
      const family = NETWORKS[network as keyof typeof NETWORKS]?.family;
      const factory = factoryOf(cfg, network);
      const salt = saltFor(tenantId, paymentId);
      if (factory && family === 'evm') return { address: depositAddress(factory, forwarderImplementationAddress(factory), salt), salt };
      const implementation = cfg.FORWARDER_IMPLEMENTATION_TRX;
      if (factory && family === 'tron' && implementation) return { address: tronDepositAddress(factory, implementation, salt), salt };
      throw new Error(`No forwarder factory configured for ${network}`);
    },
  };
}
