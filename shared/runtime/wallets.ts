import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { dynamoLedger } from '../store/ledger.js';
import { dynamoWallets, dynamoWalletTransfers } from '../store/wallets.js';
import type { WalletsPorts } from '../usecases/wallets/ports.js';

/** The wallet use cases wired from configuration: the DynamoDB wallets, transfers and ledger, and the clock. */
export function walletsRuntime(cfg: Config = config()): WalletsPorts {
  return {
    wallets: dynamoWallets,
    transfers: dynamoWalletTransfers,
    ledger: dynamoLedger,
    settings: { allowLoopbackCallbacks: cfg.ALLOW_LOOPBACK_CALLBACKS },
    clock: systemClock,
  };
}
