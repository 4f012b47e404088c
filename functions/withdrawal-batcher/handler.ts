import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../../shared/config/config.js';
import { KmsSigner } from '../../shared/chain/signer/kms-signer.js';
import { defaultChainTxDeps } from '../../shared/usecases/chain-tx/runtime.js';
import { tokenContract } from '../../shared/usecases/currencies/runtime.js';
import type { BatchReport, BatcherDeps } from '../../shared/usecases/withdrawals/process.js';
import { runWithdrawalBatch } from '../../shared/usecases/withdrawals/process.js';

/**
 * Every minute: pending withdrawals become `processing` with a chain-tx request (the hot wallet, KMS key
 * `HOT_WALLET_KEY_ID`), or settle by themselves on the staging addresses outside production.
 */
let kms: KMSClient | undefined;
let walletAddress: string | undefined;

function batcherDeps(): BatcherDeps {
  const cfg = config();
  return {
    wallet: async () => {
      const keyId = cfg.HOT_WALLET_KEY_ID;
      if (!keyId) throw new Error('HOT_WALLET_KEY_ID is not set: no hot wallet to send withdrawals with');
      kms ??= new KMSClient({ region: cfg.AWS_REGION, maxAttempts: 3 });
      walletAddress ??= await new KmsSigner(kms, keyId, null).getAddress();
      return { keyId, address: walletAddress };
    },
    chainTx: defaultChainTxDeps(),
    tokenContract: (currency) => tokenContract(currency),
    stage: cfg.STAGE,
    now: () => new Date(),
  };
}

export async function handler(): Promise<BatchReport> {
  const report = await runWithdrawalBatch(batcherDeps());
  console.log(JSON.stringify({ level: 'info', msg: 'withdrawal batch', ...report }));
  return report;
}
