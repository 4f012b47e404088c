import type { PaymentState } from '../../../shared/domain/payments.js';
import { transition } from '../../../shared/domain/payments.js';
import type { BlockRef, DepositSource, MempoolOutput, TokenTransfer, TxPlace } from '../../../shared/usecases/deposits/ports.js';
import type { HotCoin, HotCoinStore, StoredCoin } from '../../../shared/usecases/coins/ports.js';
import { CreatePaymentBody, createPayment } from '../../../shared/usecases/payments/create-payment.js';
import type { PaymentSettings } from '../../../shared/usecases/payments/ports.js';
import { coinSweep } from '../../../shared/usecases/payments/sweep-coins.js';
import { MempoolRotation } from '../../../shared/usecases/scanner/mempool-rotation.js';
import type { ScanDeps } from '../../../shared/usecases/scanner/scan.js';
import { initCursor, scanOnce } from '../../../shared/usecases/scanner/scan.js';
import { VirtualClock } from '../../support/clock.js';
import type { FakePayments } from '../../support/fakes/payments.js';
import { fakePayments, serving } from '../../support/fakes/payments.js';
import { aTenant } from '../../support/fakes/tenants.js';

/**
 * BTC payments through the chain-agnostic scan (shared/usecases/scanner/scan.ts) with a fake UTXO source: outputs of
 * blocks, a mempool, and the place of a transaction. A deposit is seen in the mempool (0 confirmations, no block),
 * mined in place (never twice), confirmed, and settled by recording it as the hot wallet's coin; a replaced or evicted
 * one returns the payment to `waiting`; nothing unconfirmed is ever credited.
 */
const T0 = new Date('2026-01-01T00:00:00.000Z');
const tenant = aTenant();
const txid = (n: number): string => n.toString(16).padStart(64, '0');
const blockHash = (n: number, fork = 0): string => `${fork ? 'f' : '0'}${n.toString(16).padStart(63, '0')}`;

/** A Bitcoin chain the test moves: blocks of outputs, a mempool of outputs, and the fake API's call counts. */
class FakeBtc implements DepositSource {
  readonly family = 'btc';
  readonly blocks = new Map<number, { hash: string; outputs: TokenTransfer[] }>();
  readonly mempoolTxs = new Map<string, MempoolOutput[]>();
  calls = 0;
  lookups = 0;
  places = 0;
  constructor(public tip: number) {
    for (let n = 0; n <= tip; n++) this.blocks.set(n, { hash: blockHash(n), outputs: [] });
  }
  addressForm = (a: string): string => a.toLowerCase();
  async head(): Promise<number> {
    this.calls++;
    return this.tip;
  }
  async block(n: number): Promise<BlockRef | null> {
    this.calls++;
    const b = n <= this.tip ? this.blocks.get(n) : undefined;
    return b ? { number: n, hash: b.hash } : null;
  }
  tokenTransfers = async (): Promise<TokenTransfer[]> => [];
  readonly utxos = {
    outputs: async (from: number, to: number): Promise<TokenTransfer[]> => {
      const found: TokenTransfer[] = [];
      for (let n = from; n <= to; n++) {
        this.calls += 2;
        found.push(...(this.blocks.get(n)?.outputs ?? []));
      }
      return found;
    },
  };
  readonly mempool = {
    incoming: async (address: string): Promise<MempoolOutput[]> => {
      this.calls++;
      this.lookups++;
      return [...this.mempoolTxs.values()].flat().filter((o) => o.to === address.toLowerCase());
    },
    place: async (hash: string): Promise<TxPlace> => {
      this.calls++;
      this.places++;
      if (this.mempoolTxs.has(hash)) return { state: 'mempool' };
      for (const [n, b] of this.blocks)
        if (n <= this.tip && b.outputs.some((o) => o.txHash === hash)) return { state: 'confirmed', blockNumber: n, blockHash: b.hash };
      return { state: 'gone' };
    },
  };
  close(): void {}

  /** Broadcast: a transaction paying `value` to `to` waits in the mempool. */
  broadcast(hash: string, to: string, value: bigint, replaceable = false, index = 0): void {
    this.mempoolTxs.set(hash, [...(this.mempoolTxs.get(hash) ?? []), { txHash: hash, index, to: to.toLowerCase(), value, replaceable }]);
  }
  /** The next block, with these mempool transactions (and outputs given directly). */
  mine(hashes: readonly string[] = [], direct: readonly { txHash: string; to: string; value: bigint; index?: number }[] = []): number {
    const n = ++this.tip;
    const hash = blockHash(n);
    const outputs: TokenTransfer[] = [];
    for (const h of hashes) {
      for (const o of this.mempoolTxs.get(h) ?? [])
        outputs.push({ token: '', to: o.to, value: o.value, txHash: h, logIndex: o.index, blockNumber: n, blockHash: hash });
      this.mempoolTxs.delete(h);
    }
    for (const d of direct)
      outputs.push({ token: '', to: d.to.toLowerCase(), value: d.value, txHash: d.txHash, logIndex: d.index ?? 0, blockNumber: n, blockHash: hash });
    this.blocks.set(n, { hash, outputs });
    return n;
  }
  /** Block `n` (and every one after it) replaced by empty blocks of another branch. */
  reorgFrom(n: number): void {
    for (let i = n; i <= this.tip; i++) this.blocks.set(i, { hash: blockHash(i, 1), outputs: [] });
  }
}

class MemoryCoins implements HotCoinStore {
  readonly coins = new Map<string, StoredCoin>();
  adds = 0;
  async add(coins: readonly HotCoin[]): Promise<void> {
    this.adds++;
    for (const c of coins) if (!this.coins.has(`${c.txid}:${c.vout}`)) this.coins.set(`${c.txid}:${c.vout}`, { ...c, state: 'available' });
  }
  async available(): Promise<StoredCoin[]> {
    return [...this.coins.values()];
  }
  async reserve(): Promise<boolean> {
    return false;
  }
  async ofBatch(): Promise<StoredCoin[]> {
    return [];
  }
  async markSpent(): Promise<void> {}
  async release(): Promise<void> {}
}

interface World {
  fake: FakePayments;
  chain: FakeBtc;
  coins: MemoryCoins;
  deps: ScanDeps;
}

async function world(settings: Partial<PaymentSettings> = {}, rotation?: MempoolRotation): Promise<World> {
  const fake = fakePayments({ clock: new VirtualClock(T0), served: serving(['BTC']) });
  const chain = new FakeBtc(100);
  const coins = new MemoryCoins();
  const deps: ScanDeps = {
    ...fake,
    settings: { ...fake.settings, ...settings },
    source: chain,
    sweep: coinSweep({ payments: fake.payments, coins }),
    ...(rotation ? { mempoolRotation: rotation } : {}),
  };
  await initCursor('BTC', 100, deps);
  return { fake, chain, coins, deps };
}

/** A BTC payment of 60 USD: 0.001 BTC at the fake's 60,000 USD a coin, fee paid by the merchant. */
async function btcPayment(w: World, body: Partial<CreatePaymentBody> = {}): Promise<PaymentState> {
  return createPayment({ body: CreatePaymentBody().parse({ amount: '60', currency: 'BTC', ...body }), tenant, now: w.fake.clock.now() }, w.fake);
}

const stored = async (w: World, p: PaymentState): Promise<PaymentState> => (await w.fake.payments.get(p.tenantId, p.id)) as PaymentState;
const eventsOf = (w: World, p: PaymentState, type?: string) =>
  w.fake.payments.events.filter((e) => e.paymentId === p.id && (type === undefined || e.type === type));
const sats = (p: PaymentState): bigint => BigInt(Math.round(Number(p.amountCrypto) * 1e8));

describe('BTC payments through the scan', () => {
  it('seen in the mempool within a pass, mined in place, confirmed, credited and recorded as a hot-wallet coin', async () => {
    const w = await world();
    const p = await btcPayment(w);
    expect(p.amountCrypto).toBe('0.001');
    w.chain.broadcast(txid(1), p.address, sats(p));
    const seen = await scanOnce('BTC', w.deps);
    expect(seen).toMatchObject({ recorded: 1, mempoolLookups: 1, settled: 0 });
    const confirming = await stored(w, p);
    expect(confirming.status).toBe('confirming');
    expect(confirming.deposits).toEqual([
      expect.objectContaining({ id: `BTC:${txid(1)}:0`, blockNumber: -1, blockHash: '', confirmations: 0, replaceable: false, status: 'pending' }),
    ]);
    expect(eventsOf(w, p, 'deposit_received').map((e) => e.payload)).toEqual([expect.objectContaining({ confirmations: 0, replaceable: false })]);
    // Head moves without the transaction: still 0 confirmations, still unconfirmed.
    w.chain.mine();
    await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).deposits[0]).toMatchObject({ confirmations: 0, blockNumber: -1 });

    const minedIn = w.chain.mine([txid(1)]);
    await scanOnce('BTC', w.deps);
    const mined = await stored(w, p);
    expect(mined.deposits).toEqual([
      expect.objectContaining({ id: `BTC:${txid(1)}:0`, blockNumber: minedIn, blockHash: blockHash(minedIn), confirmations: 1 }),
    ]);
    expect(mined.status).toBe('confirming');
    // Recorded once: one deposit_received for the whole life of the deposit.
    expect(eventsOf(w, p, 'deposit_received')).toHaveLength(1);

    w.chain.mine();
    expect(await scanOnce('BTC', w.deps)).toMatchObject({ settled: 1 });
    const done = await stored(w, p);
    expect(done).toMatchObject({ status: 'completed', sweepTxHash: txid(1), merchantReceived: '0.00099' });
    expect(w.fake.ledger.entries.map((e) => e.id)).toEqual([`payment:${p.id}`]);
    expect([...w.coins.coins.values()]).toEqual([
      { network: 'BTC', txid: txid(1), vout: 0, value: 100_000n, tag: p.salt, source: `payment:${tenant.id}:${p.id}`, state: 'available' },
    ]);
  });

  it('a replaceable payment replaced by one paying elsewhere goes back to waiting, announced, and is never credited', async () => {
    const w = await world();
    const p = await btcPayment(w);
    w.chain.broadcast(txid(2), p.address, sats(p), true);
    await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).deposits[0]).toMatchObject({ replaceable: true, confirmations: 0 });
    expect(eventsOf(w, p, 'deposit_received')[0]?.payload).toMatchObject({ replaceable: true });

    // BIP125: the sender replaces it with a transaction paying elsewhere, mined at once.
    w.chain.mempoolTxs.delete(txid(2));
    w.chain.mine([], [{ txHash: txid(3), to: 'bcrt1qelsewhere', value: sats(p) }]);
    await scanOnce('BTC', w.deps);
    const back = await stored(w, p);
    expect([back.status, back.deposits, back.transactionHash]).toEqual(['waiting', [], null]);
    expect(eventsOf(w, p, 'payment_status_update').map((e) => e.payload.status)).toEqual(['confirming', 'waiting']);
    for (let i = 0; i < 3; i++) {
      w.chain.mine();
      await scanOnce('BTC', w.deps);
    }
    expect((await stored(w, p)).status).toBe('waiting');
    expect(w.fake.ledger.entries).toEqual([]);
    expect(w.coins.coins.size).toBe(0);
  });

  it('an evicted transaction (gone without a block) drops the seen deposit; seen again, it is recorded again', async () => {
    const w = await world();
    const p = await btcPayment(w);
    w.chain.broadcast(txid(4), p.address, sats(p));
    await scanOnce('BTC', w.deps);
    const evicted = w.chain.mempoolTxs.get(txid(4)) ?? [];
    w.chain.mempoolTxs.delete(txid(4));
    await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).status).toBe('waiting');
    w.chain.mempoolTxs.set(txid(4), evicted);
    await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).deposits).toEqual([expect.objectContaining({ id: `BTC:${txid(4)}:0`, confirmations: 0 })]);
  });

  it('never credits before the first confirmation, even with no confirmation required (a floor of 1 on a UTXO network)', async () => {
    const w = await world({ confirmationsFor: () => 0 });
    const p = await btcPayment(w);
    w.chain.broadcast(txid(5), p.address, sats(p), true);
    for (let i = 0; i < 3; i++) await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).status).toBe('confirming');
    expect(w.fake.ledger.entries).toEqual([]);
    w.chain.mine([txid(5)]);
    expect(await scanOnce('BTC', w.deps)).toMatchObject({ settled: 1 });
    expect((await stored(w, p)).status).toBe('completed');
  });

  it('a deposit found first in a block (never in the mempool) is recorded mined, and a reorg undoes it', async () => {
    const w = await world();
    const p = await btcPayment(w);
    const n = w.chain.mine([], [{ txHash: txid(6), to: p.address, value: sats(p), index: 2 }]);
    await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).deposits).toEqual([expect.objectContaining({ id: `BTC:${txid(6)}:2`, blockNumber: n, confirmations: 1, logIndex: 2 })]);
    expect(w.chain.places).toBe(0);
    w.chain.reorgFrom(n);
    await scanOnce('BTC', w.deps);
    expect(await stored(w, p)).toMatchObject({ status: 'waiting', deposits: [] });
  });

  it('a mined deposit whose block is reorged away while its transaction returns to the mempool is seen again', async () => {
    const w = await world();
    const p = await btcPayment(w);
    w.chain.broadcast(txid(7), p.address, sats(p));
    await scanOnce('BTC', w.deps);
    const n = w.chain.mine([txid(7)]);
    await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).deposits[0]?.blockNumber).toBe(n);
    w.chain.reorgFrom(n);
    w.chain.broadcast(txid(7), p.address, sats(p));
    await scanOnce('BTC', w.deps);
    await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).deposits).toEqual([expect.objectContaining({ id: `BTC:${txid(7)}:0`, blockNumber: -1, confirmations: 0 })]);
    expect(w.fake.ledger.entries).toEqual([]);
  });

  it('under, over and late payments go through the same transitions as on the other chains', async () => {
    const w = await world({ lateWatchHours: 24 });
    const under = await btcPayment(w);
    const over = await btcPayment(w);
    const late = await btcPayment(w, { expiry_minutes: 5 });
    w.chain.mine(
      [],
      [
        { txHash: txid(8), to: under.address, value: sats(under) / 2n },
        { txHash: txid(9), to: over.address, value: sats(over) * 2n },
      ],
    );
    await scanOnce('BTC', w.deps);
    w.chain.mine();
    await scanOnce('BTC', w.deps);
    expect(await stored(w, under)).toMatchObject({ status: 'partially_paid', flags: ['underpaid'] });
    expect(await stored(w, over)).toMatchObject({ status: 'completed', flags: ['overpaid'], merchantReceived: '0.00199' });

    // The rest of the underpaid one, through the mempool (partially paid payments are looked up too), completes it.
    w.chain.broadcast(txid(10), under.address, sats(under) / 2n);
    await scanOnce('BTC', w.deps);
    expect((await stored(w, under)).deposits).toHaveLength(2);
    w.chain.mine([txid(10)]);
    w.chain.mine();
    await scanOnce('BTC', w.deps);
    expect(await stored(w, under)).toMatchObject({ status: 'completed', merchantReceived: '0.00099' });

    // Expired, then paid within the watch window: credited, flagged paid_late.
    w.fake.clock.advance(6 * 60_000);
    const waiting = await stored(w, late);
    await w.fake.payments.save(waiting, transition(waiting, { kind: 'expire' }, w.fake.clock.now()), w.fake.clock.now());
    w.chain.mine([], [{ txHash: txid(11), to: late.address, value: sats(late) }]);
    w.chain.mine();
    await scanOnce('BTC', w.deps);
    expect(await stored(w, late)).toMatchObject({ status: 'completed', flags: ['paid_late'] });
    expect([...w.coins.coins.values()].map((c) => c.source).sort()).toEqual(
      [`payment:${tenant.id}:${under.id}`, `payment:${tenant.id}:${under.id}`, `payment:${tenant.id}:${over.id}`, `payment:${tenant.id}:${late.id}`].sort(),
    );
  });

  it('looks up at most the budget of waiting payments a pass, the longest unchecked first, so every one is looked up in turn', async () => {
    const rotation = new MempoolRotation(2);
    const w = await world({}, rotation);
    const payments = [];
    for (let i = 0; i < 5; i++) payments.push(await btcPayment(w));
    const reports = [];
    for (let i = 0; i < 3; i++) reports.push(await scanOnce('BTC', w.deps));
    expect(reports.map((r) => r.mempoolLookups)).toEqual([2, 2, 2]);
    // The last one broadcast to is found within ceil(5 / 2) = 3 passes, whichever it is.
    const last = payments[4] as PaymentState;
    w.chain.broadcast(txid(12), last.address, sats(last));
    for (let i = 0; i < 3; i++) await scanOnce('BTC', w.deps);
    expect((await stored(w, last)).status).toBe('confirming');
  });

  it('reads the list of waiting payments at most once per refresh interval, not every pass', async () => {
    const rotation = new MempoolRotation(10, 10_000);
    const w = await world({}, rotation);
    const first = await btcPayment(w);
    let reads = 0;
    const waitingNative = w.fake.payments.waitingNative.bind(w.fake.payments);
    w.fake.payments.waitingNative = async (network) => (reads++, waitingNative(network));
    await scanOnce('BTC', w.deps);
    const late = await btcPayment(w);
    w.chain.broadcast(txid(14), late.address, sats(late));
    await scanOnce('BTC', w.deps);
    // Listed before it existed: not looked up yet; once the list is read again (10 s on), it is.
    expect([reads, (await stored(w, late)).status]).toEqual([1, 'waiting']);
    w.fake.clock.advance(10_000);
    await scanOnce('BTC', w.deps);
    expect([reads, (await stored(w, late)).status, (await stored(w, first)).status]).toEqual([2, 'confirming', 'waiting']);
  });

  it('a settlement retried after a crash between the coins and the payment records each coin once', async () => {
    const w = await world();
    const p = await btcPayment(w);
    w.chain.mine([], [{ txHash: txid(13), to: p.address, value: sats(p) }]);
    w.chain.mine();
    const sweep = coinSweep({ payments: w.fake.payments, coins: w.coins });
    // The pass dies right after the coin is added: the payment is left `sending`.
    const crashing = {
      ...sweep,
      requestSweep: async (r: Parameters<typeof sweep.requestSweep>[0]) => (await sweep.requestSweep(r), Promise.reject(new Error('crash'))),
    };
    await expect(scanOnce('BTC', { ...w.deps, sweep: crashing })).rejects.toThrow('crash');
    expect((await stored(w, p)).status).toBe('sending');
    w.fake.clock.advance(6 * 60_000);
    await scanOnce('BTC', w.deps);
    expect((await stored(w, p)).status).toBe('completed');
    expect(w.coins.coins.size).toBe(1);
    expect(w.fake.ledger.entries).toHaveLength(1);
  });
});
