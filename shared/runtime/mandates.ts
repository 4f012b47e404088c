import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { evmMandates } from '../chain/evm/mandate-port.js';
import type { MandatesConfig } from '../chain/evm/mandate-port.js';
import { kmsKeyAddress } from '../chain/signer/kms-address.js';
import { contractEnvironmentFor, findNetwork } from '../domain/currencies.js';
import type { Mandates } from '../usecases/subscriptions/ports.js';
import { tokenContract } from './currencies.js';

/**
 * Pull subscriptions' mandates wired from configuration, without a chain client (the subscriptions API's): with
 * `SUBSCRIPTION_COLLECTOR_CONTRACT`, on each EVM network this deployment reaches (`EVM_RPC_URLS`; the catalogue's
 * chain id of the stage: on the local stack, the one its anvil runs with), the configured token contracts, and the
 * hot wallet's address (`HOT_WALLET_KEY_ID`, read from KMS once) as the payee. Without the contract: undefined.
 */
export function mandatesConfig(cfg: Config, hotWalletAddress?: () => Promise<string>): MandatesConfig {
  const keyId = cfg.HOT_WALLET_KEY_ID;
  let known: Promise<string> | undefined;
  const kms = keyId
    ? () => {
        known ??= kmsKeyAddress(keyId, cfg.AWS_REGION).catch((error: unknown) => {
          known = undefined;
          throw error;
        });
        return known;
      }
    : null;
  return {
    collector: cfg.SUBSCRIPTION_COLLECTOR_CONTRACT,
    tokenContract: (currency) => tokenContract(currency, cfg),
    chainId: (network) => (cfg.EVM_RPC_URLS[network] ? (findNetwork(network)?.chainId[contractEnvironmentFor(cfg.STAGE)] ?? null) : null),
    hotWalletAddress: hotWalletAddress ?? kms,
  };
}

export function mandatesRuntime(cfg: Config = config()): Mandates | undefined {
  return cfg.SUBSCRIPTION_COLLECTOR_CONTRACT ? evmMandates(mandatesConfig(cfg)) : undefined;
}
