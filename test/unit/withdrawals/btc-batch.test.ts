import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { p2pkh, p2wpkh } from '@scure/btc-signer';
import { BTC_SIGNER_NETWORKS } from '../../../shared/chain/btc/transaction.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { requestIdOf } from '../../../shared/domain/chain-tx.js';
import { creditEntry, MAIN, NETWORK_FEES } from '../../../shared/domain/ledger.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { openWithdrawal } from '../../../shared/domain/withdrawals.js';
import { btcPayoutsOf } from '../../../shared/usecases/chain-tx/btc.js';
import { onBtcBatchResult, onSingleWithdrawalResult } from '../../../shared/usecases/withdrawals/btc-batch.js';
import type { BatcherDeps } from '../../../shared/usecases/withdrawals/ports.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { VirtualClock } from '../../support/clock.js';
import { CHAIN_NETWORKS, serving } from '../../support/fakes/payments.js';
import type { FakeWithdrawals } from '../../support/fakes/withdrawals.js';
import { FAKE_WALLET, fakeWithdrawals } from '../../support/fakes/withdrawals.js';

/** Bitcoin withdrawals: every pending one of a pass in ONE request, settled with each one's share of the fee. */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const NET = BTC_SIGNER_NETWORKS.local;
const address = (n: number, form: 'wpkh' | 'pkh' = 'wpkh'): string => {
  const key = secp256k1.getPublicKey(hexToBytes(n.toString(16).padStart(64, '0')), true);
  return (form === 'wpkh' ? p2wpkh(key, NET).address : p2pkh(key, NET).address) as string;
};

async function btcFake(maxOutputs = 250): Promise<{ fake: FakeWithdrawals; deps: BatcherDeps }> {
  const fake = fakeWithdrawals({ clock: new VirtualClock(T0), served: serving([...CHAIN_NETWORKS, 'BTC']) });
  await fake.ledger.post({
    tenantId: 't1',
    entryId: 'funding',
    entry: creditEntry({ account: MAIN, type: 'adjustment', currency: 'BTC', amount: '1', reason: 'test funding' }),
    now: T0,
  });
  return { fake, deps: { ...fake, btcBatch: { maxOutputs } } };
}

let serial = 0;
async function pendingBtc(fake: FakeWithdrawals, amount: string, to: string): Promise<WithdrawalState> {
  serial++;
  const change = openWithdrawal(
    {
      id: `w-${String(serial).padStart(4, '0')}`,
      tenantId: 't1',
      currency: 'BTC',
      network: 'BTC',
      token: 'BTC',
      amount,
      networkFee: '0.0001',
      platformFee: '0.00001',
      totalFee: '0.00011',
      totalDeducted: (Number(amount) + 0.00011).toFixed(8),
      address: to,
      customId: null,
      callbackUrl: null,
      accountId: null,
      priceAmount: null,
      priceCurrency: null,
    },
    fake.clock.now(),
  );
  return fake.withdrawals.create({ change, dayTotal: null }, fake.clock.now());
}

const batchRequests = (fake: FakeWithdrawals): ChainTx[] => [...fake.chainTxs.txs.values()].filter((t) => t.purpose === 'withdrawal_batch');

/** The request as the engine leaves it once mined: an attempt with its txid and fee shares. */
function mined(fake: FakeWithdrawals, tx: ChainTx, shares: bigint[]): string {
  const hash = bytesToHex(new Uint8Array(32).fill(7));
  const fee = shares.reduce((a, b) => a + b, 0n);
  fake.chainTxs.txs.set(tx.requestId, {
    ...tx,
    status: 'confirmed',
    attempts: [
      {
        hash,
        raw: '00',
        fees: { type: 'btc', feeRate: 5n, fee, change: 0n },
        gasLimit: 200n,
        signedAt: T0.toISOString(),
        feeShares: shares.map(String),
      },
    ],
  });
  return hash;
}

describe('the batcher on Bitcoin', () => {
  it('sends every pending BTC withdrawal of the pass in ONE request, saves first, outputs in satoshis in item order', async () => {
    const { fake, deps } = await btcFake();
    const a = await pendingBtc(fake, '0.001', address(1));
    const b = await pendingBtc(fake, '0.0025', address(2, 'pkh'));
    const report = await runWithdrawalBatch(deps);
    expect(report.processing).toBe(2);
    const [request, ...others] = batchRequests(fake);
    expect(others).toEqual([]);
    if (!request) throw new Error('no request');
    expect(request).toMatchObject({ network: 'BTC', wallet: FAKE_WALLET, items: [`t1:${a.id}`, `t1:${b.id}`], value: 350_000n });
    expect(btcPayoutsOf(request)).toEqual([
      { item: `t1:${a.id}`, address: address(1), value: 100_000n },
      { item: `t1:${b.id}`, address: address(2, 'pkh'), value: 250_000n },
    ]);
    for (const w of [a, b]) {
      expect(await fake.withdrawals.get('t1', w.id)).toMatchObject({ status: 'processing', batch: { reference: request.reference, single: false } });
    }
  });

  it('caps a pass at the configured outputs; the rest go on the next pass', async () => {
    const { fake, deps } = await btcFake(2);
    for (const n of [1, 2, 3]) await pendingBtc(fake, '0.001', address(n));
    await runWithdrawalBatch(deps);
    expect(batchRequests(fake).map((r) => r.items?.length)).toEqual([2]);
    expect((await fake.withdrawals.queued('pending', 10)).length).toBe(1);
    await runWithdrawalBatch(deps);
    expect(
      batchRequests(fake)
        .map((r) => r.items?.length)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('leaves BTC withdrawals pending (network not served) where no Bitcoin sender is configured', async () => {
    const { fake } = await btcFake();
    const w = await pendingBtc(fake, '0.001', address(1));
    await runWithdrawalBatch(fake);
    expect(batchRequests(fake)).toEqual([]);
    expect(await fake.withdrawals.get('t1', w.id)).toMatchObject({ status: 'pending', dispatchRefusal: 'network_not_served' });
  });
});

describe('the batcher recovering a BTC batch', () => {
  it('leaves items to a batch that may still pay them, and sends them singly once it is cancelled for an unpayable output', async () => {
    const { fake, deps } = await btcFake();
    const a = await pendingBtc(fake, '0.001', address(1));
    const b = await pendingBtc(fake, '0.002', address(2));
    await runWithdrawalBatch(deps);
    const request = batchRequests(fake)[0] as ChainTx;
    fake.clock.advance(120_000);
    await runWithdrawalBatch(deps);
    expect((await fake.withdrawals.get('t1', a.id))?.batch?.single).toBe(false);
    // The engine held it: one of its outputs can never be paid.
    fake.chainTxs.txs.set(request.requestId, { ...request, reason: 'estimate_failed' });
    fake.clock.advance(120_000);
    await runWithdrawalBatch(deps);
    expect(fake.chainTxs.txs.get(request.requestId)?.status).toBe('cancelled');
    for (const w of [a, b]) {
      expect(await fake.withdrawals.get('t1', w.id)).toMatchObject({ status: 'processing', batch: { single: true } });
      expect(fake.chainTxs.txs.get(requestIdOf('BTC', w.id))).toMatchObject({ purpose: 'withdrawal', network: 'BTC' });
    }
  });
});

describe('a BTC batch result', () => {
  it('completes every item with the txid and its fee share as its network fee, the rest of the held fee returned', async () => {
    const { fake, deps } = await btcFake();
    const a = await pendingBtc(fake, '0.001', address(1));
    const b = await pendingBtc(fake, '0.002', address(2));
    await runWithdrawalBatch(deps);
    const request = batchRequests(fake)[0] as ChainTx;
    // a's share is under the 0.0001 held; b's is above it: b pays what was held, no more.
    const hash = mined(
      fake,
      request,
      (request.items ?? []).map((item) => (item === `t1:${a.id}` ? 2_345n : 12_000n)),
    );
    const settleDeps = { withdrawals: fake.withdrawals, chainTx: fake.chainTx, wallet: async () => FAKE_WALLET };
    expect(await onBtcBatchResult(request.requestId, { ok: true, txHash: hash }, T0, settleDeps)).toEqual({ completed: 2, single: 0, unchanged: 0 });
    expect(await fake.withdrawals.get('t1', a.id)).toMatchObject({
      status: 'completed',
      transactionHash: hash,
      networkFee: '0.00002345',
      totalFee: '0.00003345',
      totalDeducted: '0.00103345',
    });
    expect(await fake.withdrawals.get('t1', b.id)).toMatchObject({ status: 'completed', networkFee: '0.0001', totalDeducted: '0.00211' });
    // Held 0.00111 + 0.00211; paid 0.00103345 + 0.00211: the difference is back, nothing stays locked.
    expect(await fake.ledger.balance('t1', MAIN, 'BTC')).toMatchObject({ amount: '0.99685655', locked: '0' });
    expect((await fake.ledger.platformBalances(NETWORK_FEES)).BTC).toBe('0.00012345');
    // Again: nothing changes.
    expect(await onBtcBatchResult(request.requestId, { ok: true, txHash: hash }, T0, settleDeps)).toEqual({ completed: 0, single: 0, unchanged: 2 });
  });

  it('a batch that failed (never sent) pays nothing: each item goes singly, one output under its own id', async () => {
    const { fake, deps } = await btcFake();
    const a = await pendingBtc(fake, '0.001', address(1));
    await runWithdrawalBatch(deps);
    const request = batchRequests(fake)[0] as ChainTx;
    const settleDeps = { withdrawals: fake.withdrawals, chainTx: fake.chainTx, wallet: async () => FAKE_WALLET };
    expect(await onBtcBatchResult(request.requestId, { ok: false, reason: 'cancelled' }, T0, settleDeps)).toMatchObject({ single: 1 });
    expect(await fake.withdrawals.get('t1', a.id)).toMatchObject({ status: 'processing', batch: { single: true } });
    const single = fake.chainTxs.txs.get(requestIdOf('BTC', a.id));
    expect(single).toMatchObject({ purpose: 'withdrawal', items: [`t1:${a.id}`] });
    expect(btcPayoutsOf(single as ChainTx)).toEqual([{ item: `t1:${a.id}`, address: address(1), value: 100_000n }]);
    // Sent alone and mined: it completes with its transaction's whole fee as its network fee.
    const hash = mined(fake, single as ChainTx, [4_321n]);
    const done = await onSingleWithdrawalResult('t1', a.id, { ok: true, txHash: hash }, T0, settleDeps);
    expect(done).toMatchObject({ status: 'completed', transactionHash: hash, networkFee: '0.00004321' });
  });
});
