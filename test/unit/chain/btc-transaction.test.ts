import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { OutScript, SigHash, Transaction, p2pk, p2pkh, p2sh, p2tr, p2wpkh, p2wsh } from '@scure/btc-signer';
import fc from 'fast-check';
import { depositTag, depositWitnessScript } from '../../../shared/chain/btc/p2wsh.js';
import type { PlanCoin } from '../../../shared/chain/btc/transaction.js';
import {
  BTC_SIGNER_NETWORKS,
  CHANGE_TAG_HEX,
  InsufficientCoinsError,
  InvalidPayoutError,
  RBF_SEQUENCE,
  changeOutput,
  dustLimit,
  feeShares,
  planBatch,
  signBatch,
} from '../../../shared/chain/btc/transaction.js';
import { LocalBtcSigner } from '../../support/fakes/btc.js';

const NET = BTC_SIGNER_NETWORKS.local;
const signer = new LocalBtcSigner(hex.decode('11'.repeat(32)));
const key = (n: number): Uint8Array => secp256k1.getPublicKey(hex.decode(n.toString(16).padStart(64, '0')), true);

const ADDRESSES = {
  pkh: p2pkh(key(1), NET).address as string,
  sh: p2sh(p2wpkh(key(2), NET), NET).address as string,
  wpkh: p2wpkh(key(3), NET).address as string,
  wsh: p2wsh(p2pk(key(4)), NET).address as string,
  tr: p2tr(key(5).subarray(1), undefined, NET).address as string,
};

const coin = (n: number, value: bigint): PlanCoin => ({
  txid: n.toString(16).padStart(64, '0'),
  vout: n % 3,
  value,
  tag: hex.encode(depositTag('t1', `payment-${n}`)),
});

describe('dust limits per output type', () => {
  it('are P2PKH 546, P2SH 540, P2WPKH 294, P2WSH 330, P2TR 330', () => {
    expect(dustLimit(ADDRESSES.pkh, 'local')).toBe(546n);
    expect(dustLimit(ADDRESSES.sh, 'local')).toBe(540n);
    expect(dustLimit(ADDRESSES.wpkh, 'local')).toBe(294n);
    expect(dustLimit(ADDRESSES.wsh, 'local')).toBe(330n);
    expect(dustLimit(ADDRESSES.tr, 'local')).toBe(330n);
  });

  it('refuse an address of another network', () => {
    expect(() => dustLimit(p2wpkh(key(3)).address as string, 'local')).toThrow();
  });
});

describe('a batch plan', () => {
  it('pays every payout, sends the change to the hot change address, and splits the fee by weight', async () => {
    const hotKey = await signer.publicKey();
    const plan = planBatch({
      network: 'local',
      hotPublicKey: hotKey,
      coins: [coin(1, 50_000n), coin(2, 300_000n), coin(3, 20_000n)],
      payouts: [
        { item: 't1:a', address: ADDRESSES.pkh, value: 100_000n },
        { item: 't1:b', address: ADDRESSES.wpkh, value: 100_000n },
      ],
      feeRate: 7n,
    });
    expect(plan.inputs.map((c) => c.txid)).toEqual([coin(2, 0n).txid]);
    expect(plan.fee).toBe(7n * BigInt(plan.vsize));
    expect(plan.change).toEqual({ vout: 2, value: 300_000n - 200_000n - plan.fee, address: changeOutput(hotKey, 'local').address });
    expect(plan.shares.reduce((a, b) => a + b, 0n)).toBe(plan.fee);
    // A P2PKH output (34 bytes) weighs more than a P2WPKH one (31 bytes): it pays a larger share.
    expect((plan.shares[0] as bigint) > (plan.shares[1] as bigint)).toBe(true);
  });

  it('drops change below the dust limit to the fee, the shares still summing to it', async () => {
    const hotKey = await signer.publicKey();
    const base = planBatch({
      network: 'local',
      hotPublicKey: hotKey,
      coins: [coin(1, 100_000n)],
      payouts: [{ item: 't1:a', address: ADDRESSES.wpkh, value: 50_000n }],
      feeRate: 3n,
    });
    // Pay so much that less than 330 satoshis would be left as change.
    const tight = planBatch({
      network: 'local',
      hotPublicKey: hotKey,
      coins: [coin(1, 100_000n)],
      payouts: [{ item: 't1:a', address: ADDRESSES.wpkh, value: 100_000n - base.fee - 200n }],
      feeRate: 3n,
    });
    expect(tight.change).toBeNull();
    expect(tight.fee).toBe(base.fee + 200n);
    expect(tight.fee >= 3n * BigInt(tight.vsize)).toBe(true);
    expect(tight.shares).toEqual([tight.fee]);
  });

  it('refuses what the coins cannot cover, and payouts below their dust limit', async () => {
    const hotKey = await signer.publicKey();
    const payouts = [{ item: 't1:a', address: ADDRESSES.wpkh, value: 99_990n }];
    expect(() => planBatch({ network: 'local', hotPublicKey: hotKey, coins: [coin(1, 100_000n)], payouts, feeRate: 2n })).toThrow(InsufficientCoinsError);
    expect(() =>
      planBatch({
        network: 'local',
        hotPublicKey: hotKey,
        coins: [coin(1, 100_000n)],
        payouts: [{ item: 't1:a', address: ADDRESSES.pkh, value: 545n }],
        feeRate: 2n,
      }),
    ).toThrow(InvalidPayoutError);
    // A mainnet address on the local network.
    expect(() =>
      planBatch({
        network: 'local',
        hotPublicKey: hotKey,
        coins: [coin(1, 100_000n)],
        payouts: [{ item: 't1:a', address: p2wpkh(key(3)).address as string, value: 5_000n }],
        feeRate: 2n,
      }),
    ).toThrow(InvalidPayoutError);
  });

  it('as a replacement keeps its inputs and pays the old fee plus its own size at 1 sat/vB at least', async () => {
    const hotKey = await signer.publicKey();
    const coins = [coin(1, 60_000n), coin(2, 70_000n)];
    const payouts = [{ item: 't1:a', address: ADDRESSES.tr, value: 100_000n }];
    const first = planBatch({ network: 'local', hotPublicKey: hotKey, coins, payouts, feeRate: 4n, fixedInputs: true });
    const next = planBatch({ network: 'local', hotPublicKey: hotKey, coins, payouts, feeRate: 5n, fixedInputs: true, replacesFee: first.fee });
    expect(next.inputs).toEqual(first.inputs);
    expect(next.fee >= first.fee + BigInt(next.vsize)).toBe(true);
    expect(next.fee >= 5n * BigInt(next.vsize)).toBe(true);
  });
});

describe('fee shares', () => {
  it('always sum exactly to the fee, each at least its weight share rounded down', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 8n }),
        fc.array(fc.constantFrom(124, 128, 136, 172), { minLength: 1, maxLength: 60 }),
        fc.nat(20_000),
        (fee, weights, rest) => {
          const total = weights.reduce((a, b) => a + b, 0) + rest;
          const shares = feeShares(fee, weights, total);
          expect(shares.reduce((a, b) => a + b, 0n)).toBe(fee);
          shares.forEach((s) => expect(s >= 0n).toBe(true));
          // Heavier outputs never pay less than lighter ones.
          weights.forEach((w, i) => weights.forEach((v, j) => w > v && expect((shares[i] as bigint) >= (shares[j] as bigint)).toBe(true)));
        },
      ),
    );
  });
});

describe('a signed batch', () => {
  it('is version 2, signals RBF on every input, signs each input once over its BIP143 sighash, and verifies', async () => {
    const hotKey = await signer.publicKey();
    const coins = [coin(1, 40_000n), coin(2, 30_000n), coin(3, 25_000n)];
    const plan = planBatch({
      network: 'local',
      hotPublicKey: hotKey,
      coins,
      payouts: [
        { item: 't1:a', address: ADDRESSES.wsh, value: 50_000n },
        { item: 't1:b', address: ADDRESSES.sh, value: 30_000n },
      ],
      feeRate: 2n,
      fixedInputs: true,
    });
    const before = signer.calls;
    const signed = await signBatch(plan, signer, 'local');
    expect(signer.calls - before).toBe(3);
    const tx = Transaction.fromRaw(hex.decode(signed.raw), { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true });
    expect(tx.id).toBe(signed.txid);
    expect(tx.version).toBe(2);
    expect(tx.vsize).toBeLessThanOrEqual(plan.vsize);
    expect(tx.outputsLength).toBe(3);
    expect(OutScript.decode(tx.getOutput(0).script as Uint8Array).type).toBe('wsh');
    expect(tx.getOutput(2).amount).toBe(plan.change?.value);
    // Re-derived here from the transaction alone: each input's BIP143 digest, and the witness signature over it.
    const unsigned = new Transaction({ version: 2, allowUnknownInputs: true });
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      expect(input.sequence).toBe(RBF_SEQUENCE);
      const c = coins[i] as PlanCoin;
      expect(hex.encode(input.txid as Uint8Array)).toBe(c.txid);
      const script = depositWitnessScript(hex.decode(c.tag), hotKey);
      expect(input.finalScriptWitness?.[1]).toEqual(script);
      unsigned.addInput({ txid: input.txid as Uint8Array, index: input.index as number, sequence: RBF_SEQUENCE });
    }
    for (let i = 0; i < tx.outputsLength; i++) unsigned.addOutput({ script: tx.getOutput(i).script as Uint8Array, amount: tx.getOutput(i).amount as bigint });
    for (let i = 0; i < tx.inputsLength; i++) {
      const c = coins[i] as PlanCoin;
      const witness = tx.getInput(i).finalScriptWitness as Uint8Array[];
      const signature = witness[0] as Uint8Array;
      expect(signature[signature.length - 1]).toBe(SigHash.ALL);
      const digest = unsigned.preimageWitnessV0(i, witness[1] as Uint8Array, SigHash.ALL, c.value);
      expect(secp256k1.verify(signature.subarray(0, -1), digest, hotKey, { prehash: false, format: 'der', lowS: true })).toBe(true);
    }
  });

  it('refuses a signer whose signatures do not verify against its key', async () => {
    const hotKey = await signer.publicKey();
    const plan = planBatch({
      network: 'local',
      hotPublicKey: hotKey,
      coins: [coin(1, 40_000n)],
      payouts: [{ item: 't1:a', address: ADDRESSES.wpkh, value: 10_000n }],
      feeRate: 2n,
    });
    const other = new LocalBtcSigner(hex.decode('22'.repeat(32)));
    await expect(signBatch(plan, { publicKey: () => signer.publicKey(), signDigest: (d) => other.signDigest(d) }, 'local')).rejects.toThrow(/does not verify/);
  });

  it('sends its change to the one change tag of the hot key', () => {
    expect(CHANGE_TAG_HEX).toBe(hex.encode(depositTag('platform', 'hot-change')));
  });
});
