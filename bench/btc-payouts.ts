/**
 * Bitcoin payouts: the size of a batch of N withdrawals (one transaction: coin selection over the hot wallet's
 * deposit coins, N P2WPKH outputs, change back to the hot wallet) per payout, beside a transaction paying ONE
 * withdrawal from one deposit coin; and the KMS Sign calls a batch takes against its inputs (one per input). Signed
 * for real through KmsBtcSigner against the local KMS-compatible server (infra/local/kms), so the vbytes are those
 * of the signed transactions (signatures of their real length). Deterministic apart from DER lengths (a byte).
 *
 *   npx tsx bench/btc-payouts.ts [N]
 */
import { pathToFileURL } from 'node:url';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { p2wpkh } from '@scure/btc-signer';
import { startKmsServer } from '../infra/local/kms/server.js';
import { depositTag } from '../shared/chain/btc/p2wsh.js';
import type { BtcPayout, PlanCoin } from '../shared/chain/btc/transaction.js';
import { BTC_SIGNER_NETWORKS, planBatch, signBatch } from '../shared/chain/btc/transaction.js';
import { KmsBtcSigner } from '../shared/chain/signer/kms-btc-signer.js';

export interface BtcPayoutsResult {
  readonly payouts: number;
  readonly feeRate: bigint;
  /** The one-withdrawal transaction: one deposit coin in, the payout and the change out. */
  readonly single: { readonly vsize: number; readonly inputs: number };
  /** The batch of `payouts`. */
  readonly batch: { readonly vsize: number; readonly inputs: number; readonly kmsSigns: number; readonly fee: bigint };
  /** `batch.vsize / payouts`. */
  readonly perPayout: number;
  /** `perPayout / single.vsize` (goal at most 0.35). */
  readonly ratio: number;
}

const NET = BTC_SIGNER_NETWORKS.local;
/** Customers' deposits as the hot wallet holds them: 0.005 BTC each; payouts 0.001 BTC to fresh P2WPKH addresses. */
const DEPOSIT = 500_000n;
const PAYOUT = 100_000n;

export async function benchBtcPayouts(options: { payouts?: number; feeRate?: bigint } = {}): Promise<BtcPayoutsResult> {
  const payouts = options.payouts ?? 50;
  const feeRate = options.feeRate ?? 10n;
  const server = await startKmsServer({ host: '127.0.0.1', port: 0 });
  const kms = new KMSClient({ endpoint: server.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  try {
    const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
    const signer = new KmsBtcSigner(kms, key.KeyMetadata?.KeyId as string);
    const hotPublicKey = await signer.publicKey();
    const coins: PlanCoin[] = Array.from({ length: payouts }, (_, i) => ({
      txid: (i + 1).toString(16).padStart(64, '0'),
      vout: 0,
      value: DEPOSIT,
      tag: hex.encode(depositTag('bench', `payment-${i}`)),
    }));
    const outputs: BtcPayout[] = Array.from({ length: payouts }, (_, i) => ({
      item: `bench:w${i}`,
      address: p2wpkh(secp256k1.getPublicKey(hex.decode((i + 1).toString(16).padStart(64, '0')), true), NET).address as string,
      value: PAYOUT,
    }));
    const one = planBatch({ network: 'local', hotPublicKey, coins: coins.slice(0, 1), payouts: outputs.slice(0, 1), feeRate });
    const single = await signBatch(one, signer, 'local');
    const plan = planBatch({ network: 'local', hotPublicKey, coins, payouts: outputs, feeRate });
    const before = signer.calls;
    const batch = await signBatch(plan, signer, 'local');
    const perPayout = batch.vsize / payouts;
    return {
      payouts,
      feeRate,
      single: { vsize: single.vsize, inputs: one.inputs.length },
      batch: { vsize: batch.vsize, inputs: plan.inputs.length, kmsSigns: signer.calls - before, fee: plan.fee },
      perPayout,
      ratio: perPayout / single.vsize,
    };
  } finally {
    kms.destroy();
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const n = Number(process.argv[2] ?? 50);
  benchBtcPayouts({ payouts: n }).then(
    (r) => {
      console.log(JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
