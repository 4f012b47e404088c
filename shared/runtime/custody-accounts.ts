import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { createSolanaSigningKey, scheduleSolanaKeyDeletion } from '../chain/signer/ed25519-keys.js';
import { kmsEd25519Address } from '../chain/signer/kms-ed25519-address.js';
import { systemClock } from '../domain/clock.js';
import { NETWORKS } from '../domain/currencies.js';
import { BUILTIN_PROVIDER, custodySaltId } from '../domain/custody.js';
import { GatewayError } from '../domain/errors.js';
import { dynamoCustodyAccounts, dynamoCustodyAddresses, dynamoCustodyTransfers } from '../store/custody.js';
import { dynamoLedger } from '../store/ledger.js';
import type { CustodyPorts, CustodyProvider } from '../usecases/custody/ports.js';
import { tokenContract } from './currencies.js';
import { custodyKmsClient } from './custody-kms.js';
import { factoryAddresses, factoryOf } from './deposit-addresses.js';
import { ratesRuntime } from './rates.js';

/**
 * The custody Lambda's wiring (functions/custody): accounts, their balances and deposit addresses, and transfers
 * between them. Sync (chain reads) and withdrawals are Lambdas of their own (shared/runtime/custody-sync.ts,
 * shared/runtime/custody-withdrawals.ts), so that this one bundles no chain client, no withdrawal pricing and no
 * Ed25519 curve.
 */
export type CustodyAccountsPorts = Omit<CustodyPorts, 'deposits' | 'chains'>;

/**
 * The built-in custody provider: an account's ETH, BSC and TRX addresses are the forwarder factories' CREATE2
 * addresses salted for the account (as a payment's are for the payment), so its deposits are swept like a
 * payment's; a chain this deployment has no factory for is refused as unsupported. An account's SOL address is the
 * public key of an Ed25519 KMS key made for it (kept with the address: withdrawals sign with it); SOL is
 * unsupported without `SOLANA_RPC_URL` and a USDTSOL mint (where the sync and the Solana poller have no chain).
 */
export function builtinProvider(cfg: Config): CustodyProvider {
  const addresses = factoryAddresses(cfg);
  const solana = cfg.SOLANA_RPC_URL !== undefined && tokenContract('USDTSOL', cfg) !== null;
  return {
    name: BUILTIN_PROVIDER,
    async abandon(made) {
      if (made.keyId !== undefined && solana) await scheduleSolanaKeyDeletion(await custodyKmsClient(cfg), made.keyId);
    },
    async depositAddress(tenantId, accountId, blockchain) {
      if (blockchain === 'SOL') {
        if (!solana) throw new GatewayError('unsupported_blockchain', 'SOL deposit addresses are not available in this deployment.', { blockchain });
        const client = await custodyKmsClient(cfg);
        const { keyId } = await createSolanaSigningKey(client, { stage: cfg.STAGE, custodyAccountId: accountId });
        try {
          return { address: await kmsEd25519Address(client, keyId), keyId, family: 'sol' };
        } catch (error) {
          // The key's address could not be read: it will never be stored.
          await scheduleSolanaKeyDeletion(client, keyId).catch(() => undefined);
          throw error;
        }
      }
      const family = NETWORKS[blockchain].family;
      const served =
        (family === 'evm' || family === 'tron') && factoryOf(cfg, blockchain) !== undefined && (family === 'evm' || cfg.FORWARDER_IMPLEMENTATION_TRX);
      if (!served) throw new GatewayError('unsupported_blockchain', `${blockchain} deposit addresses are not available in this deployment.`, { blockchain });
      return { address: (await addresses.addressFor(blockchain, tenantId, custodySaltId(accountId))).address, family };
    },
  };
}

export function custodyAccountsRuntime(cfg: Config = config()): CustodyAccountsPorts {
  return {
    accounts: dynamoCustodyAccounts,
    addresses: dynamoCustodyAddresses,
    transfers: dynamoCustodyTransfers,
    ledger: dynamoLedger,
    providers: { [BUILTIN_PROVIDER]: builtinProvider(cfg) },
    rates: ratesRuntime(cfg),
    clock: systemClock,
  };
}
