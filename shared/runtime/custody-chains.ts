import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { evmRpcRecipientSource } from '../chain/evm/deposit-source.js';
import { solanaAddressDeposits } from '../chain/solana/deposit-source.js';
import { SolanaRpc } from '../chain/solana/rpc.js';
import { TronGridClient } from '../chain/tron/grid.js';
import { tronRecipientSource } from '../chain/tron/deposit-source.js';
import { NETWORKS } from '../domain/currencies.js';
import type { AddressDepositSource } from '../usecases/deposits/ports.js';
import type { CustodyChainPorts } from '../usecases/custody/ports.js';
import { rpcUrl, tokenContract } from './currencies.js';
import { paymentSettings } from './payments.js';

/**
 * The chains the built-in custody provider reads: EVM networks through `EVM_RPC_URLS`, TRON through
 * `TRON_API_URL`, Solana through `SOLANA_RPC_URL` with the USDT mint of `USDTSOL` (the catalogue's, or
 * `TOKEN_CONTRACTS`). The custody-solana worker's wiring, which signs too, is shared/runtime/custody-solana.ts.
 */

/** The SOL addresses' USDT histories over Solana's JSON-RPC; null unless both are configured (SOL is then unsupported). */
export function custodySolana(cfg: Config = config()): AddressDepositSource | null {
  const mint = tokenContract('USDTSOL', cfg);
  if (!cfg.SOLANA_RPC_URL || !mint) return null;
  return solanaAddressDeposits(new SolanaRpc(cfg.SOLANA_RPC_URL), mint);
}

export function custodyChains(cfg: Config = config()): CustodyChainPorts {
  const settings = paymentSettings(cfg);
  return {
    sourceFor(network) {
      const family = NETWORKS[network as keyof typeof NETWORKS]?.family;
      const url = family === 'evm' ? rpcUrl(network, cfg) : null;
      if (url) return evmRpcRecipientSource(url, cfg.CUSTODY_SYNC_LOG_RANGE_BLOCKS);
      if (family === 'tron' && cfg.TRON_API_URL)
        return tronRecipientSource(new TronGridClient(cfg.TRON_API_URL, cfg.TRON_API_KEY ? { apiKey: cfg.TRON_API_KEY } : {}));
      return null;
    },
    tokenOf: (currency) => tokenContract(currency, cfg),
    confirmationsFor: settings.confirmationsFor,
    lookbackBlocks: cfg.CUSTODY_SYNC_LOOKBACK_BLOCKS,
    solana: custodySolana(cfg),
  };
}
