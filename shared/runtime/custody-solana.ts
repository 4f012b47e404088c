import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { KmsEd25519Signer } from '../chain/signer/kms-ed25519-signer.js';
import { SolanaRpc } from '../chain/solana/rpc.js';
import { solanaTransfers } from '../chain/solana/transfers.js';
import { systemClock } from '../domain/clock.js';
import { dynamoCustodyAddresses, dynamoCustodyDeposits } from '../store/custody.js';
import { acquireLease, releaseLease } from '../store/scanner.js';
import { dynamoWithdrawals } from '../store/withdrawals.js';
import { dynamoRefunds } from '../store/refunds.js';
import { followingRefunds } from '../usecases/refunds/payout.js';
import type { SolanaPollerDeps } from '../usecases/custody/solana-poller.js';
import type { SolanaWithdrawalDeps } from '../usecases/custody/solana-withdrawals.js';
import { custodySolana } from './custody-chains.js';
import { tokenContract } from './currencies.js';
import { custodyKmsClient } from './custody-kms.js';

/**
 * The custody-solana worker's wiring (functions/custody-solana): the SOL addresses' deposits
 * (./custody-chains.ts's `custodySolana`) and custody's SOL withdrawals, signed through the SolanaTransferPort
 * (shared/chain/solana/transfers.ts). A module of its own, so that the custody-sync Lambda, which reads the same
 * chains, bundles no transaction builder.
 */

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
    withdrawals: followingRefunds(dynamoWithdrawals, dynamoRefunds),
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
