import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { toTronBase58 } from '../domain/chain-addresses.js';
import { TronGridClient } from '../chain/tron/grid.js';
import { systemClock } from '../domain/clock.js';
import type { CurrencyDefinition } from '../domain/currencies.js';
import { networkFeeTable } from '../domain/withdrawal-fees.js';
import { dynamoChainTxStore } from '../store/chain-tx.js';
import { dynamoLedger } from '../store/ledger.js';
import { dynamoWalletDirectory } from '../store/wallets.js';
import { dynamoWithdrawals } from '../store/withdrawals.js';
import type { WithdrawalFeeDeps } from '../usecases/withdrawals/network-fees.js';
import type { WithdrawalsDeps } from '../usecases/withdrawals/ports.js';
import { servedNetworks } from './currencies.js';
import { ratesRuntime } from './rates.js';

/**
 * The withdrawal use cases wired from configuration: the DynamoDB repository and ledger, the network fee table
 * (the defaults with `WITHDRAWAL_NETWORK_FEES`), TRON's activation check when a TRON endpoint is configured, the
 * chain-tx store (why a processing withdrawal waits), the settings, the system clock and the wallets `account_id` names.
 */
export function withdrawalFees(cfg: Config): WithdrawalFeeDeps {
  const tronUrl = cfg.TRON_API_URL;
  const tron = tronUrl ? new TronGridClient(tronUrl, { ...(cfg.TRON_API_KEY ? { apiKey: cfg.TRON_API_KEY } : {}), timeoutMs: 3000 }) : undefined;
  return {
    networkFees: networkFeeTable(cfg.WITHDRAWAL_NETWORK_FEES),
    ...(tron
      ? {
          isNewAddress: async (currency: CurrencyDefinition, address: string) =>
            currency.family === 'tron' && !(await tron.account(toTronBase58(address))).exists,
        }
      : {}),
  };
}

export function withdrawalsRuntime(cfg: Config = config()): WithdrawalsDeps {
  return {
    withdrawals: dynamoWithdrawals,
    ledger: dynamoLedger,
    rates: ratesRuntime(cfg),
    fees: withdrawalFees(cfg),
    chainTxs: dynamoChainTxStore,
    settings: { allowLoopbackCallbacks: cfg.ALLOW_LOOPBACK_CALLBACKS, stage: cfg.STAGE },
    clock: systemClock,
    served: servedNetworks(cfg),
    wallets: dynamoWalletDirectory,
  };
}
