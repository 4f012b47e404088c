import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { Transaction, p2pkh, p2sh, p2tr, p2wpkh } from '@scure/btc-signer';
import fc from 'fast-check';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';
import { depositTag, depositWitnessScript } from '../../../shared/chain/btc/p2wsh.js';
import type { PlanCoin } from '../../../shared/chain/btc/transaction.js';
import { BTC_SIGNER_NETWORKS, planBatch, signBatch } from '../../../shared/chain/btc/transaction.js';
import { KmsBtcSigner } from '../../../shared/chain/signer/kms-btc-signer.js';

/**
 * Property: for random batches (coins, values, outputs of every address form, fee rates), every input of the
 * transaction signed through KmsBtcSigner against the local KMS-compatible server carries a signature that verifies,
 * with noble secp256k1, over the BIP143 digest computed HERE from the raw transaction alone (an implementation of
 * BIP143 independent of the builder's), against the key KMS holds; low s, SIGHASH_ALL, one KMS Sign call per input.
 */

const NET = BTC_SIGNER_NETWORKS.local;
const sha256d = (...parts: Uint8Array[]): Uint8Array => sha256(sha256(concatBytes(...parts)));
const u32 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, true);
  return b;
};
const u64 = (n: bigint): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, true);
  return b;
};
const varint = (n: number): Uint8Array => (n < 0xfd ? Uint8Array.of(n) : Uint8Array.of(0xfd, n & 0xff, n >> 8));
const reversed = (b: Uint8Array): Uint8Array => Uint8Array.from(b).reverse();

/** BIP143 signature hash of input `index` (SIGHASH_ALL) of a parsed transaction. */
function bip143(tx: Transaction, index: number, scriptCode: Uint8Array, amount: bigint): Uint8Array {
  const inputs = Array.from({ length: tx.inputsLength }, (_, i) => tx.getInput(i));
  const outputs = Array.from({ length: tx.outputsLength }, (_, i) => tx.getOutput(i));
  const outpoint = (i: (typeof inputs)[number]) => concatBytes(reversed(i.txid as Uint8Array), u32(i.index as number));
  const hashPrevouts = sha256d(...inputs.map(outpoint));
  const hashSequence = sha256d(...inputs.map((i) => u32(i.sequence as number)));
  const hashOutputs = sha256d(...outputs.map((o) => concatBytes(u64(o.amount as bigint), varint((o.script as Uint8Array).length), o.script as Uint8Array)));
  const input = inputs[index] as (typeof inputs)[number];
  return sha256d(
    u32(tx.version),
    hashPrevouts,
    hashSequence,
    outpoint(input),
    varint(scriptCode.length),
    scriptCode,
    u64(amount),
    u32(input.sequence as number),
    hashOutputs,
    u32(tx.lockTime),
    u32(1),
  );
}

const addressArb = fc.tuple(fc.integer({ min: 1, max: 2 ** 30 }), fc.constantFrom('pkh', 'sh', 'wpkh', 'tr')).map(([n, form]) => {
  const key = secp256k1.getPublicKey(hex.decode(n.toString(16).padStart(64, '0')), true);
  if (form === 'pkh') return p2pkh(key, NET).address as string;
  if (form === 'sh') return p2sh(p2wpkh(key, NET), NET).address as string;
  if (form === 'tr') return p2tr(key.subarray(1), undefined, NET).address as string;
  return p2wpkh(key, NET).address as string;
});

const batchArb = fc.record({
  coins: fc.uniqueArray(
    fc.record({
      txid: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => hex.encode(b)),
      vout: fc.nat(5),
      value: fc.bigInt({ min: 100_000n, max: 5n * 10n ** 8n }),
      ref: fc.nat(),
    }),
    { minLength: 1, maxLength: 5, selector: (c) => `${c.txid}:${c.vout}` },
  ),
  payouts: fc.array(fc.tuple(addressArb, fc.bigInt({ min: 1_000n, max: 10_000n })), { minLength: 1, maxLength: 6 }),
  feeRate: fc.bigInt({ min: 1n, max: 25n }),
});

describe('KMS-signed Bitcoin batches', () => {
  let server: KmsServer;
  let kms: KMSClient;
  let signer: KmsBtcSigner;

  beforeAll(async () => {
    server = await startKmsServer({ host: '127.0.0.1', port: 0 });
    kms = new KMSClient({ endpoint: server.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
    const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
    signer = new KmsBtcSigner(kms, key.KeyMetadata?.KeyId as string);
  });

  afterAll(async () => {
    kms?.destroy();
    await server?.close();
  });

  it('every input verifies over its independently computed BIP143 sighash, one KMS Sign call each', async () => {
    const hotKey = await signer.publicKey();
    expect(hotKey).toHaveLength(33);
    await fc.assert(
      fc.asyncProperty(batchArb, async ({ coins: drawn, payouts, feeRate }) => {
        const coins: PlanCoin[] = drawn.map((c) => ({ txid: c.txid, vout: c.vout, value: c.value, tag: hex.encode(depositTag('t1', `p-${c.ref}`)) }));
        const plan = planBatch({
          network: 'local',
          hotPublicKey: hotKey,
          coins,
          payouts: payouts.map(([address, value], i) => ({ item: `t1:w${i}`, address, value })),
          feeRate,
          fixedInputs: true,
        });
        const before = signer.calls;
        const signed = await signBatch(plan, signer, 'local');
        expect(signer.calls - before).toBe(coins.length);
        const tx = Transaction.fromRaw(hex.decode(signed.raw), { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true });
        expect(tx.id).toBe(signed.txid);
        expect(tx.inputsLength).toBe(coins.length);
        for (let i = 0; i < tx.inputsLength; i++) {
          const coin = coins[i] as PlanCoin;
          const [signature, script] = tx.getInput(i).finalScriptWitness as Uint8Array[];
          expect(script).toEqual(depositWitnessScript(hex.decode(coin.tag), hotKey));
          expect(signature?.[signature.length - 1]).toBe(1);
          const digest = bip143(tx, i, script as Uint8Array, coin.value);
          const der = (signature as Uint8Array).subarray(0, -1);
          expect(secp256k1.verify(der, digest, hotKey, { prehash: false, format: 'der', lowS: true })).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});
