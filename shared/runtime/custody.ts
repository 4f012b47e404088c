import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { NETWORKS } from '../domain/currencies.js';
import { BUILTIN_PROVIDER, custodySaltId } from '../domain/custody.js';
import type { CustodyBlockchain } from '../domain/custody.js';
import { dynamoCustodyAccounts, dynamoCustodyAddresses, dynamoCustodyDeposits, dynamoCustodyPolicies, dynamoCustodyTransfers } from '../store/custody.js';
import { dynamoLedger } from '../store/ledger.js';
import { GatewayError } from '../domain/errors.js';
import type { CustodyPorts, CustodyProvider, CustodyWithdrawalPorts } from '../usecases/custody/ports.js';
import { withdrawalsRuntime } from './withdrawals.js';
import { factoryAddresses, factoryOf } from './payments.js';
import { custodyChains, solanaCustodyKeys } from './custody-chains.js';
import { ratesRuntime } from './rates.js';

/** The custody chains' networks in the catalogue. */
const NETWORK_OF: Readonly<Record<CustodyBlockchain, string>> = { ETH: 'ETH', BSC: 'BSC', TRX: 'TRX', SOL: 'SOL' };

/**
 * The built-in custody provider: an account's ETH, BSC and TRX addresses are the forwarder factories' CREATE2
 * addresses salted for the account (as a payment's are for the payment), so its deposits are swept like a
 * payment's. A chain this deployment does not serve (no factory for it) is refused as unsupported, like an
 * unserved currency elsewhere. An account's SOL address is the public key of an Ed25519 KMS key made for it (kept
 * with the address: withdrawals sign with it); SOL is unsupported without `SOLANA_RPC_URL` and a USDTSOL mint.
 */
export function builtinProvider(cfg: Config): CustodyProvider {
  const addresses = factoryAddresses(cfg);
  const solana = custodyChains(cfg).solana ? solanaCustodyKeys(cfg) : null;
  return {
    name: BUILTIN_PROVIDER,
    async abandon(made) {
      if (made.keyId !== undefined) await solana?.discard(made.keyId);
    },
    async depositAddress(tenantId, accountId, blockchain) {
      if (blockchain === 'SOL') {
        if (!solana) throw new GatewayError('unsupported_blockchain', 'SOL deposit addresses are not available in this deployment.', { blockchain });
        return { ...(await solana.create(accountId)), family: 'sol' };
      }
      const network = NETWORK_OF[blockchain];
      const family = NETWORKS[network as keyof typeof NETWORKS]?.family;
      const served = (family === 'evm' || family === 'tron') && factoryOf(cfg, network) !== undefined && (family === 'evm' || cfg.FORWARDER_IMPLEMENTATION_TRX);
      if (!served) throw new GatewayError('unsupported_blockchain', `${blockchain} deposit addresses are not available in this deployment.`, { blockchain });
      return { address: addresses.addressFor(network, tenantId, custodySaltId(accountId)).address, family };
    },
  };
}

/** The custody use cases wired from configuration: accounts, addresses, transfers, and withdrawals with their review. */
export function custodyRuntime(cfg: Config = config()): CustodyPorts & CustodyWithdrawalPorts {
  const withdrawals = withdrawalsRuntime(cfg);
  return {
    withdrawals: withdrawals.withdrawals,
    fees: withdrawals.fees,
    served: withdrawals.served,
    settings: { allowLoopbackCallbacks: cfg.ALLOW_LOOPBACK_CALLBACKS },
    policies: dynamoCustodyPolicies,
    accounts: dynamoCustodyAccounts,
    addresses: dynamoCustodyAddresses,
    transfers: dynamoCustodyTransfers,
    ledger: dynamoLedger,
    providers: { [BUILTIN_PROVIDER]: builtinProvider(cfg) },
    rates: ratesRuntime(cfg),
    clock: systemClock,
    deposits: dynamoCustodyDeposits,
    chains: custodyChains(cfg),
  };
}
