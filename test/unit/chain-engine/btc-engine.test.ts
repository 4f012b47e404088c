import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Transaction, p2wpkh } from '@scure/btc-signer';
import { depositTag } from '../../../shared/chain/btc/p2wsh.js';
import { BTC_SIGNER_NETWORKS } from '../../../shared/chain/btc/transaction.js';
import { BtcBatchBuilder, classifyBtcBroadcast, feeRateOf } from '../../../shared/chain/engine/btc.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { CHAIN_TX_CONFIRMED, currentAttempt, openChainTx, requestIdOf } from '../../../shared/domain/chain-tx.js';
import { btcPayoutData, btcPayoutsOf } from '../../../shared/usecases/chain-tx/btc.js';
import { followChainTx } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';
import type { ChainTxDeps, CrashPoint } from '../../../shared/usecases/chain-tx/ports.js';
import { processChainTx } from '../../../shared/usecases/chain-tx/process-chain-tx.js';
import { FakeBtcChain, InMemoryHotCoins, LocalBtcSigner } from '../../support/fakes/btc.js';
import { InMemoryChainTxs } from '../../support/fakes/withdrawals.js';

/** The chain-tx engine on Bitcoin with fakes: the state machine, persist-before-broadcast, replacement, confirmation. */

const NOW = new Date('2026-01-01T00:00:00Z');
const NET = BTC_SIGNER_NETWORKS.local;
const WALLET = { keyId: 'hot', address: '0x1111111111111111111111111111111111111111' };
const recipient = (n: number): string => p2wpkh(secp256k1.getPublicKey(hex.decode(n.toString(16).padStart(64, '0')), true), NET).address as string;

interface Harness {
  readonly deps: ChainTxDeps;
  readonly store: InMemoryChainTxs;
  readonly coins: InMemoryHotCoins;
  readonly chain: FakeBtcChain;
  readonly signer: LocalBtcSigner;
  /** Everything that happened, in order: `persist:<status>` and `broadcast:<txid>`. */
  readonly log: string[];
  crashAt: CrashPoint | null;
}

function harness(): Harness {
  const store = new InMemoryChainTxs();
  const coins = new InMemoryHotCoins();
  const chain = new FakeBtcChain();
  const signer = new LocalBtcSigner(hex.decode('33'.repeat(32)));
  const log: string[] = [];
  const save = store.save.bind(store);
  store.save = async (previous, change) => {
    log.push(`persist:${change.state.status}:${change.state.attempts.length}`);
    return save(previous, change);
  };
  const broadcast = chain.broadcast.bind(chain);
  chain.broadcast = async (raw) => {
    log.push(`broadcast:${Transaction.fromRaw(hex.decode(raw), { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true }).id}`);
    return broadcast(raw);
  };
  const h: Harness = {
    store,
    coins,
    chain,
    signer,
    log,
    crashAt: null,
    deps: {
      store,
      chain: () => {
        throw new Error('no EVM chain here');
      },
      signer: { sign: () => Promise.reject(new Error('no EVM signer here')) },
      btc: { chain: () => chain, builder: new BtcBatchBuilder(() => signer, 'local'), coins, confirmations: 2, replaceAfterBlocks: 3, maxCoins: 100 },
      clock: () => NOW,
      settings: { confirmations: 3, bumpAfterSeconds: 60, caps: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, retryQueuedAfterSeconds: 60 },
      crash: (point) => {
        if (point === h.crashAt) throw new Error(`crash at ${point}`);
      },
    },
  };
  return h;
}

const coin = (n: number, value: bigint) => ({
  network: 'BTC',
  txid: n.toString(16).padStart(64, '0'),
  vout: 0,
  value,
  tag: hex.encode(depositTag('t1', `payment-${n}`)),
  source: `payment:t1:p${n}`,
});

async function requested(h: Harness, outputs: { address: string; value: bigint }[], reference = 'withdrawal-batch:b1'): Promise<ChainTx> {
  const tx = openChainTx(
    {
      network: 'BTC',
      reference,
      purpose: 'withdrawal_batch',
      tenantId: 'platform',
      wallet: WALLET,
      to: WALLET.address,
      data: btcPayoutData(outputs),
      value: outputs.reduce((n, o) => n + o.value, 0n),
      items: outputs.map((_, i) => `t1:w${i}`),
    },
    NOW,
  );
  return (await h.store.create(tx)) as ChainTx;
}

const parsed = (raw: string) => Transaction.fromRaw(hex.decode(raw), { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true });
const inputsOf = (raw: string): string[] => {
  const tx = parsed(raw);
  return Array.from({ length: tx.inputsLength }, (_, i) => `${hex.encode(tx.getInput(i).txid as Uint8Array)}:${tx.getInput(i).index}`).sort();
};

describe('a Bitcoin request', () => {
  it('round-trips its outputs through its data', () => {
    const outputs = [
      { address: recipient(1), value: 10_000n },
      { address: recipient(2), value: 20_000n },
    ];
    expect(btcPayoutsOf({ requestId: 'BTC:x', data: btcPayoutData(outputs), items: ['t1:a', 't1:b'] })).toEqual([
      { item: 't1:a', ...outputs[0] },
      { item: 't1:b', ...outputs[1] },
    ]);
    expect(() => btcPayoutsOf({ requestId: 'BTC:x', data: '0x00', items: [] })).toThrow(/not a Bitcoin payout request/);
  });

  it('reserves coins, signs, PERSISTS, then broadcasts: one transaction paying every output, one signature per input', async () => {
    const h = harness();
    await h.coins.add([coin(1, 30_000n), coin(2, 25_000n), coin(3, 1_000_000n)]);
    const tx = await requested(h, [
      { address: recipient(1), value: 40_000n },
      { address: recipient(2), value: 12_000n },
    ]);
    const after = await processChainTx(tx.requestId, h.deps);
    expect(after.status).toBe('pending');
    const attempt = currentAttempt(after);
    if (!attempt || attempt.fees.type !== 'btc') throw new Error('no Bitcoin attempt');
    expect(h.log).toEqual([`persist:signed:1`, `broadcast:${attempt.hash}`, 'persist:pending:1']);
    const signed = parsed(attempt.raw);
    expect(signed.outputsLength).toBe(3);
    expect([signed.getOutput(0).amount, signed.getOutput(1).amount, signed.getOutput(2).amount]).toEqual([40_000n, 12_000n, attempt.fees.change]);
    expect(h.signer.calls).toBe(signed.inputsLength);
    expect((attempt.feeShares ?? []).reduce((n, s) => n + BigInt(s), 0n)).toBe(attempt.fees.fee);
    const reserved = await h.coins.ofBatch('BTC', tx.reference);
    expect(reserved.map((c) => `${c.txid}:${c.vout}`).sort()).toEqual(inputsOf(attempt.raw));
    expect(reserved.every((c) => c.state === 'reserved')).toBe(true);
  });

  it('waits (insufficient funds) without reserving or sending anything while the coins cannot cover it, then goes', async () => {
    const h = harness();
    await h.coins.add([coin(1, 10_000n)]);
    const tx = await requested(h, [{ address: recipient(1), value: 50_000n }]);
    const blocked = await processChainTx(tx.requestId, h.deps);
    expect(blocked).toMatchObject({ status: 'queued', reason: 'insufficient_gas' });
    expect(h.chain.broadcasts).toEqual([]);
    expect((await h.coins.available('BTC', 10)).length).toBe(1);
    await h.coins.add([coin(2, 100_000n)]);
    expect((await processChainTx(tx.requestId, h.deps)).status).toBe('pending');
  });

  it('waits with estimate_failed, nothing reserved or sent, when an output can never be paid (another network)', async () => {
    const h = harness();
    await h.coins.add([coin(1, 100_000n)]);
    const mainnet = p2wpkh(secp256k1.getPublicKey(hex.decode('01'.padStart(64, '0')), true)).address as string;
    const tx = await requested(h, [
      { address: recipient(1), value: 10_000n },
      { address: mainnet, value: 10_000n },
    ]);
    expect(await processChainTx(tx.requestId, h.deps)).toMatchObject({ status: 'queued', reason: 'estimate_failed' });
    expect(h.chain.broadcasts).toEqual([]);
    expect(await h.coins.ofBatch('BTC', tx.reference)).toEqual([]);
  });

  it('a crash after persisting re-broadcasts the SAME bytes; a crash before persisting sends nothing and reuses its coins', async () => {
    const h = harness();
    await h.coins.add([coin(1, 100_000n), coin(2, 100_000n)]);
    const tx = await requested(h, [{ address: recipient(1), value: 150_000n }]);
    h.crashAt = 'after_sign';
    await expect(processChainTx(tx.requestId, h.deps)).rejects.toThrow(/crash/);
    expect(h.chain.broadcasts).toEqual([]);
    expect((await h.store.get(tx.requestId))?.status).toBe('queued');
    const reservedFirst = (await h.coins.ofBatch('BTC', tx.reference)).map((c) => c.txid).sort();
    h.crashAt = 'after_persist';
    await expect(processChainTx(tx.requestId, h.deps)).rejects.toThrow(/crash/);
    expect(h.chain.broadcasts).toEqual([]);
    const persisted = await h.store.get(tx.requestId);
    expect(persisted?.status).toBe('signed');
    expect((await h.coins.ofBatch('BTC', tx.reference)).map((c) => c.txid).sort()).toEqual(reservedFirst);
    h.crashAt = null;
    const sent = await processChainTx(tx.requestId, h.deps);
    expect(sent.status).toBe('pending');
    expect(h.chain.broadcasts).toEqual([currentAttempt(persisted as ChainTx)?.raw]);
  });

  it(`is replaced after ${3} blocks with the same inputs at a higher fee, persisted first; whichever attempt is mined settles it once`, async () => {
    const h = harness();
    await h.coins.add([coin(1, 80_000n), coin(2, 70_000n), coin(3, 5_000n)]);
    const tx = await requested(h, [
      { address: recipient(1), value: 60_000n },
      { address: recipient(2), value: 70_000n },
    ]);
    let current = await processChainTx(tx.requestId, h.deps);
    const first = currentAttempt(current);
    if (!first || first.fees.type !== 'btc') throw new Error('no Bitcoin attempt');
    h.chain.places.set(first.hash, { state: 'mempool' });
    // Two blocks later: not yet due, the same bytes go out again.
    h.chain.tip += 2;
    current = await followChainTx(current, h.deps);
    expect(current.attempts).toHaveLength(1);
    expect(h.chain.broadcasts.at(-1)).toBe(first.raw);
    // Three blocks after its signature, still unmined: replaced.
    h.chain.tip += 1;
    h.log.length = 0;
    current = await followChainTx(current, h.deps);
    expect(current.attempts).toHaveLength(2);
    const second = currentAttempt(current);
    if (!second || second.fees.type !== 'btc') throw new Error('no replacement');
    expect(h.log).toEqual(['persist:signed:2', `broadcast:${second.hash}`, 'persist:pending:2']);
    expect(inputsOf(second.raw)).toEqual(inputsOf(first.raw));
    expect(second.fees.feeRate).toBeGreaterThanOrEqual(first.fees.feeRate + 1n);
    expect(second.fees.fee).toBeGreaterThanOrEqual(first.fees.fee + second.gasLimit);
    // The same payouts, in the same order.
    const [a, b] = [parsed(first.raw), parsed(second.raw)];
    for (const i of [0, 1]) expect(b.getOutput(i)).toEqual(a.getOutput(i));

    // The FIRST attempt is mined after all (it was still in some mempool): it, and only it, settles the request.
    h.chain.places.set(first.hash, { state: 'confirmed', blockNumber: h.chain.tip + 1, blockHash: 'b' });
    h.chain.tip += 1;
    current = await followChainTx(current, h.deps);
    expect(current.status).toBe('pending');
    h.chain.tip += 1;
    const confirmed = await followChainTx(current, h.deps);
    expect(confirmed).toMatchObject({ status: 'confirmed', mined: { hash: first.hash, status: 1, gasUsed: first.fees.fee } });
    const spent = await h.coins.ofBatch('BTC', tx.reference);
    expect(spent.every((c) => c.state === 'spent')).toBe(true);
    const change = [...h.coins.coins.values()].find((c) => c.source === `change:${tx.reference}`);
    expect(change).toMatchObject({ txid: first.hash, vout: 2, value: first.fees.change, state: 'available' });
    // Final: nothing more is signed or sent for it.
    const sends = h.chain.broadcasts.length;
    expect(await followChainTx(confirmed, h.deps)).toBe(confirmed);
    expect(await processChainTx(tx.requestId, h.deps)).toMatchObject({ status: 'confirmed' });
    expect(h.chain.broadcasts.length).toBe(sends);
  });

  it('a replacement whose coins cannot pay more takes one more coin, still spending every coin of the first', async () => {
    const h = harness();
    await h.coins.add([coin(1, 100_000n)]);
    // 100,000 in, 99,000 out: no change (below dust), the rest is the fee, and nothing left to raise it.
    const tx = await requested(h, [{ address: recipient(1), value: 99_000n }]);
    let current = await processChainTx(tx.requestId, h.deps);
    const first = currentAttempt(current);
    if (!first || first.fees.type !== 'btc') throw new Error('no Bitcoin attempt');
    expect(first.fees.change).toBe(0n);
    h.chain.tip += 3;
    current = await followChainTx(current, h.deps);
    // No coin to add yet: the same bytes are sent again.
    expect(current.attempts).toHaveLength(1);
    await h.coins.add([coin(2, 50_000n)]);
    current = await followChainTx(current, h.deps);
    const second = currentAttempt(current);
    if (current.attempts.length !== 2 || !second || second.fees.type !== 'btc') throw new Error('no replacement');
    expect(inputsOf(second.raw)).toEqual([...inputsOf(first.raw), `${coin(2, 0n).txid}:0`].sort());
    expect(second.fees.fee).toBeGreaterThanOrEqual(first.fees.fee + second.gasLimit);
    expect((await h.coins.ofBatch('BTC', tx.reference)).map((c) => c.state)).toEqual(['reserved', 'reserved']);
    // The FIRST is mined: the coin added for the replacement goes back.
    h.chain.places.set(first.hash, { state: 'confirmed', blockNumber: h.chain.tip, blockHash: 'b' });
    h.chain.tip += 1;
    expect((await followChainTx(current, h.deps)).mined?.hash).toBe(first.hash);
    expect((await h.coins.available('BTC', 10)).map((c) => c.txid)).toEqual([coin(2, 0n).txid]);
  });

  it('announces chain_tx.confirmed with the mined txid once confirmed', async () => {
    const h = harness();
    await h.coins.add([coin(1, 100_000n)]);
    const saved: string[] = [];
    const save = h.store.save.bind(h.store);
    h.store.save = async (previous, change) => {
      saved.push(...change.events.map((e) => `${e.type}:${e.payload.tx_hash}`));
      return save(previous, change);
    };
    const tx = await requested(h, [{ address: recipient(1), value: 10_000n }]);
    const pending = await processChainTx(tx.requestId, h.deps);
    const hash = currentAttempt(pending)?.hash as string;
    h.chain.places.set(hash, { state: 'confirmed', blockNumber: h.chain.tip, blockHash: 'b' });
    h.chain.tip += 1;
    expect((await followChainTx(pending, h.deps)).status).toBe('confirmed');
    expect(saved).toEqual([`${CHAIN_TX_CONFIRMED}:${hash}`]);
    expect(requestIdOf('BTC', tx.reference)).toBe(tx.requestId);
  });

  it('two processors of one request persist ONE attempt; a coin reserved but unused is available again once it confirms', async () => {
    const h = harness();
    await h.coins.add([coin(1, 100_000n), coin(2, 100_000n), coin(3, 100_000n)]);
    const tx = await requested(h, [{ address: recipient(1), value: 90_000n }]);
    const runs = await Promise.allSettled([processChainTx(tx.requestId, h.deps), processChainTx(tx.requestId, h.deps)]);
    expect(runs.every((r) => r.status === 'fulfilled')).toBe(true);
    const stored = (await h.store.get(tx.requestId)) as ChainTx;
    expect(stored.attempts).toHaveLength(1);
    const attempt = currentAttempt(stored);
    if (!attempt) throw new Error('not signed');
    expect(new Set(h.chain.broadcasts)).toEqual(new Set([attempt.raw]));
    expect([...(attempt.spends ?? [])].sort()).toEqual(inputsOf(attempt.raw));
    h.chain.places.set(attempt.hash, { state: 'confirmed', blockNumber: h.chain.tip, blockHash: 'b' });
    h.chain.tip += 1;
    expect((await followChainTx(stored, h.deps)).status).toBe('confirmed');
    const left = await h.coins.ofBatch('BTC', tx.reference);
    expect(
      left
        .filter((c) => c.state === 'spent')
        .map((c) => `${c.txid}:${c.vout}`)
        .sort(),
    ).toEqual(inputsOf(attempt.raw));
    expect(left.filter((c) => c.state === 'reserved')).toEqual([]);
    expect((await h.coins.available('BTC', 10)).length).toBe(
      3 - inputsOf(attempt.raw).length + (attempt.fees.type === 'btc' && attempt.fees.change > 0n ? 1 : 0),
    );
  });

  it('a request holding coins that no longer cover it waits with them released (after its save), then goes once funded', async () => {
    const h = harness();
    await h.coins.add([coin(1, 60_000n)]);
    const tx = await requested(h, [{ address: recipient(1), value: 55_000n }]);
    h.crashAt = 'after_sign';
    await expect(processChainTx(tx.requestId, h.deps)).rejects.toThrow(/crash/);
    h.crashAt = null;
    expect((await h.coins.ofBatch('BTC', tx.reference)).map((c) => c.state)).toEqual(['reserved']);
    // The fee rate jumps: 60,000 no longer pays 55,000 and the fee.
    h.chain.rate = 50n;
    expect(await processChainTx(tx.requestId, h.deps)).toMatchObject({ status: 'queued', reason: 'insufficient_gas' });
    expect(await h.coins.ofBatch('BTC', tx.reference)).toEqual([]);
    expect((await h.coins.available('BTC', 10)).length).toBe(1);
    await h.coins.add([coin(2, 100_000n)]);
    expect((await processChainTx(tx.requestId, h.deps)).status).toBe('pending');
  });

  it('two batches never take the same coin', async () => {
    const h = harness();
    await h.coins.add([coin(1, 100_000n), coin(2, 100_000n)]);
    const one = await requested(h, [{ address: recipient(1), value: 90_000n }], 'withdrawal-batch:one');
    const two = await requested(h, [{ address: recipient(2), value: 90_000n }], 'withdrawal-batch:two');
    const [a, b] = await Promise.all([processChainTx(one.requestId, h.deps), processChainTx(two.requestId, h.deps)]);
    const ins = [...inputsOf(currentAttempt(a)?.raw as string), ...inputsOf(currentAttempt(b)?.raw as string)];
    expect(new Set(ins).size).toBe(ins.length);
  });
});

describe('the Esplora adapter', () => {
  it('takes the fee rate of the nearest target at or above its own, rounded up, at least 1 sat/vB', () => {
    expect(feeRateOf({ '1': 30.2, '2': 20.5, '3': 12.01, '6': 8 }, 3)).toBe(13n);
    expect(feeRateOf({ '1': 30.2, '6': 8 }, 3)).toBe(8n);
    expect(feeRateOf({ '1': 30.2 }, 3)).toBe(31n);
    expect(feeRateOf({}, 3)).toBe(1n);
    expect(feeRateOf({ '2': 0.5 }, 3)).toBe(1n);
  });

  it('reads a broadcast refused as already known or already spent by another attempt as known; other refusals are errors', () => {
    expect(classifyBtcBroadcast('sendrawtransaction RPC error: {"code":-27,"message":"Transaction already in block chain"}')?.kind).toBe('known');
    expect(classifyBtcBroadcast('sendrawtransaction RPC error: {"code":-25,"message":"bad-txns-inputs-missingorspent"}')?.kind).toBe('known');
    expect(classifyBtcBroadcast('sendrawtransaction RPC error: {"code":-27,"message":"Transaction outputs already in utxo set"}')?.kind).toBe('known');
    expect(classifyBtcBroadcast('sendrawtransaction RPC error: {"code":-26,"message":"txn-mempool-conflict"}')?.kind).toBe('known');
    expect(classifyBtcBroadcast('sendrawtransaction RPC error: {"code":-26,"message":"mandatory-script-verify-flag-failed"}')).toBeUndefined();
  });
});
