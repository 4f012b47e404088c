import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { evmRpcRecipientSource } from '../chain/evm/deposit-source.js';
import { KmsEd25519Signer } from '../chain/signer/kms-ed25519-signer.js';
import { solanaAddressDeposits } from '../chain/solana/deposit-source.js';
import { SolanaRpc } from '../chain/solana/rpc.js';
import { solanaTransfers } from '../chain/solana/transfers.js';
import { TronGridClient } from '../chain/tron/grid.js';
import { tronRecipientSource } from '../chain/tron/deposit-source.js';
import { systemClock } from '../domain/clock.js';
import { NETWORKS } from '../domain/currencies.js';
import { dynamoCustodyAddresses, dynamoCustodyDeposits } from '../store/custody.js';
import { dynamoWithdrawals } from '../store/withdrawals.js';
import { acquireLease, releaseLease } from '../store/scanner.js';
import type { AddressDepositSource } from '../usecases/deposits/ports.js';
import type { CustodyChainPorts } from '../usecases/custody/ports.js';
import type { SolanaPollerDeps } from '../usecases/custody/solana-poller.js';
import type { SolanaWithdrawalDeps } from '../usecases/custody/solana-withdrawals.js';
import { rpcUrl, tokenContract } from './currencies.js';
import { custodyKmsClient } from './custody-kms.js';
import { paymentSettings } from './payments.js';

/**
 * The chains the built-in custody provider reads and signs on: EVM networks through `EVM_RPC_URLS`, TRON through
 * `TRON_API_URL`, Solana through `SOLANA_RPC_URL` with the USDT mint of `USDTSOL` (the catalogue's, or
 * `TOKEN_CONTRACTS`), its SOL withdrawals signed by the addresses' Ed25519 KMS keys (made by the provider:
 * shared/runtime/custody-accounts.ts).
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

/**
 * Custody's SOL withdrawals: the platform's fee payer (`SOLANA_FEE_PAYER_KEY_ID`) and each address's own KMS key
 * (one signer per key, its public key read once); null without a fee payer (SOL withdrawals are then not served).
 */
export function solanaWithdrawalRuntime(cfg: Config = config()): SolanaWithdrawalDeps | null {
  const mint = tokenContract('USDTSOL', cfg);
  if (!cfg.SOLANA_RPC_URL || !mint || !cfg.SOLANA_FEE_PAYER_KEY_ID) return null;
  const client = custodyKmsClient(cfg);
  const signers = new Map<string, KmsEd25519Signer>();
  return {
    withdrawals: dynamoWithdrawals,
    addresses: dynamoCustodyAddresses,
    solana: solanaTransfers({
      rpc: new SolanaRpc(cfg.SOLANA_RPC_URL),
      mint,
      feePayer: new KmsEd25519Signer(client, cfg.SOLANA_FEE_PAYER_KEY_ID),
      signerFor(keyId) {
        let signer = signers.get(keyId);
        if (!signer) signers.set(keyId, (signer = new KmsEd25519Signer(client, keyId)));
        return signer;
      },
    }),
    clock: systemClock,
  };
}

/** The custody-solana worker's wiring; null when Solana is not configured (the worker then does nothing). */
export function solanaPollerRuntime(cfg: Config = config()): SolanaPollerDeps | null {
  const solana = custodySolana(cfg);
  if (!solana) return null;
  return {
    addresses: dynamoCustodyAddresses,
    deposits: dynamoCustodyDeposits,
    solana,
    clock: systemClock,
    lease: { acquireLease, releaseLease },
    withdrawals: solanaWithdrawalRuntime(cfg),
  };
}
