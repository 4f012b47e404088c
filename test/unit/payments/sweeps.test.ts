import type { BlockRef, EvmChainPort, TransferLog } from '../../../shared/chain/evm/scanner.js';
import type { CurrencyCode } from '../../../shared/domain/currencies.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { transition } from '../../../shared/domain/payments.js';
import { onChainResult } from '../../../shared/usecases/chain-tx/on-chain-result.js';
import type { ChainResultSettlement } from '../../../shared/usecases/chain-tx/ports.js';
import { CHAIN_RESULT_EVENTS, parseRoutedEvent } from '../../../shared/domain/events.js';
import { createPayment } from '../../../shared/usecases/payments/create-payment.js';
import { evmDepositSource } from '../../../shared/chain/evm/deposit-source.js';
import type { ScanDeps } from '../../../shared/usecases/scanner/scan.js';
import { initCursor, scanOnce } from '../../../shared/usecases/scanner/scan.js';
import type { DueSweep, SweepOutcome, SweepPort, SweepRequest } from '../../../shared/usecases/payments/settle.js';
import {
  onSweepBatchResult,
  onSweepResult,
  planSweeps,
  SWEEP_RECOVERY_AFTER_MS,
  sweepItemOf,
  sweepReference,
} from '../../../shared/usecases/payments/settle.js';
import { aPayment } from '../../support/fixtures/payments.js';
import type { FakePayments } from '../../support/fakes/payments.js';
import { fakePayments, fakeTokenContract } from '../../support/fakes/payments.js';
import { VirtualClock } from '../../support/clock.js';
import { aTenant } from '../../support/fakes/tenants.js';

/** Batched sweeps: planned per currency and size, one request per batch, one save per payment, recovered when stranded. */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const hashOf = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

/** A chain whose head the test moves, with the Transfer logs it holds (any token). */
class FakeChain implements EvmChainPort {
  readonly calls = 0;
  readonly logs: TransferLog[] = [];
  constructor(public head: number) {}
  async blockNumber(): Promise<number> {
    return this.head;
  }
  async block(n: number): Promise<BlockRef | null> {
    return n <= this.head ? { number: n, hash: hashOf(n), parentHash: hashOf(n - 1), timestamp: n } : null;
  }
  async transferLogs(from: number, to: number, tokens: readonly string[]): Promise<TransferLog[]> {
    return this.logs.filter((l) => l.blockNumber >= from && l.blockNumber <= to && tokens.includes(l.token.toLowerCase()));
  }
  async transferLogsTo(from: number, to: number, tokens: readonly string[], recipient: string): Promise<TransferLog[]> {
    return (await this.transferLogs(from, to, tokens)).filter((l) => l.to === recipient.toLowerCase());
  }
  async balance(): Promise<bigint> {
    return 0n;
  }
  async nativeTransfers(): Promise<[]> {
    return [];
  }
  close(): void {}
  pay(p: PaymentState, block: number): void {
    const token = fakeTokenContract(CURRENCIES[p.currency as CurrencyCode]) as string;
    const logIndex = this.logs.length;
    this.logs.push({
      token,
      from: `0x${'01'.repeat(20)}`,
      to: p.address.toLowerCase(),
      value: 25_000_000n,
      txHash: hashOf(10_000 + logIndex),
      logIndex,
      blockNumber: block,
      blockHash: hashOf(block),
    });
  }
}

/**
 * A sweep port as the engine behaves: requests recorded (idempotent by reference), read back by request id; `carried`
 * claims a reference never requested. `failNext` makes the next request throw (the pass dies before its request).
 */
class RecordingSweep implements SweepPort {
  readonly requests: SweepRequest[] = [];
  readonly claimed: string[] = [];
  failNext = false;
  constructor(
    public answer: SweepOutcome = { status: 'submitted' },
    readonly maxSalts?: number,
  ) {}
  async requestSweep(request: SweepRequest): Promise<SweepOutcome> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the pass died');
    }
    this.requests.push(request);
    return this.answer;
  }
  async carried(network: string, reference: string): Promise<readonly string[]> {
    const request = await this.get(`${network}:${reference}`);
    if (request) return request.items ?? [];
    this.claimed.push(reference);
    return [];
  }
  async get(requestId: string): Promise<SweepRequest | undefined> {
    return this.requests.find((r) => `${r.network}:${r.reference}` === requestId);
  }
}

async function paid(fake: FakePayments, chain: FakeChain, currencies: readonly CurrencyCode[]): Promise<PaymentState[]> {
  const out: PaymentState[] = [];
  for (const currency of currencies) {
    const p = await createPayment({ body: { amount: '25', currency }, tenant: aTenant(), now: fake.clock.now() }, fake);
    chain.pay(p, 101);
    out.push(p);
  }
  return out;
}

/** Payments paid in block 101, seen confirming (head 101), then a pass at head 102 confirms them all. */
async function confirmedTogether(currencies: readonly CurrencyCode[], sweep: RecordingSweep) {
  const fake = fakePayments({ clock: new VirtualClock(T0) });
  const chain = new FakeChain(100);
  const deps: ScanDeps = { ...fake, source: evmDepositSource(chain), sweep };
  await initCursor('ETH', 100, deps);
  const payments = await paid(fake, chain, currencies);
  chain.head = 101;
  expect(await scanOnce('ETH', deps)).toMatchObject({ recorded: currencies.length });
  chain.head = 102;
  const saves = fake.payments.saves;
  const report = await scanOnce('ETH', deps);
  return { fake, chain, deps, payments, report, passSaves: fake.payments.saves - saves };
}

const state = (fake: FakePayments, p: PaymentState) => fake.payments.get(p.tenantId, p.id);

describe('planSweeps', () => {
  const confirmed = (id: string, over: Partial<PaymentState> = {}): DueSweep => ({ payment: aPayment({ id, status: 'confirmed', ...over }) });

  it('one batch per currency of a network, in the order they come, at most maxSalts each', () => {
    const due = [
      confirmed('u1'),
      confirmed('e1', { currency: 'ETH' }),
      confirmed('u2'),
      confirmed('c1', { currency: 'USDCERC20' }),
      confirmed('u3'),
      confirmed('b1', { network: 'BSC', currency: 'USDTBSC' }),
      confirmed('e2', { currency: 'ETH' }),
    ];
    const ids = (batches: DueSweep[][]) => batches.map((b) => b.map((d) => d.payment.id));
    expect(ids(planSweeps(due, 50))).toEqual([['u1', 'u2', 'u3'], ['e1', 'e2'], ['c1'], ['b1']]);
    expect(ids(planSweeps(due, 2))).toEqual([['u1', 'u2'], ['u3'], ['e1', 'e2'], ['c1'], ['b1']]);
    expect(ids(planSweeps(due, 1))).toEqual([['u1'], ['u2'], ['u3'], ['e1'], ['e2'], ['c1'], ['b1']]);
  });

  it('takes a payment made confirmed by its unsaved change; one whose batched sweep failed goes alone', () => {
    const confirming = aPayment({ id: 'n1', status: 'confirming' });
    const change = { state: { ...confirming, status: 'confirmed' as const }, events: [], effects: [] };
    const failed = confirmed('f1', { sweepReference: 'sweep:old' });
    const due = [confirmed('u1'), failed, { payment: confirming, confirmed: change }, confirmed('u2')];
    expect(planSweeps(due, 50).map((b) => b.map((d) => d.payment.id))).toEqual([['u1', 'n1', 'u2'], ['f1']]);
  });

  it('refuses a payment that is not confirmed, and a size below one', () => {
    expect(() => planSweeps([{ payment: aPayment({ status: 'confirming' }) }], 50)).toThrow(RangeError);
    expect(() => planSweeps([confirmed('u1')], 0)).toThrow(RangeError);
  });
});

describe('a scanner pass sweeps the payments it confirms together', () => {
  it('one request per currency carrying every payment, each payment saved once (confirmed and sending)', async () => {
    const sweep = new RecordingSweep();
    const { fake, payments, passSaves } = await confirmedTogether(['USDTERC20', 'USDTERC20', 'USDCERC20', 'USDTERC20'], sweep);
    expect(passSaves).toBe(4);
    const [a, b, c, d] = payments as [PaymentState, PaymentState, PaymentState, PaymentState];
    expect(sweep.requests).toEqual([
      {
        reference: expect.stringMatching(/^sweep:[0-9a-f-]{36}$/),
        network: 'ETH',
        currency: 'USDTERC20',
        token: fakeTokenContract(CURRENCIES.USDTERC20),
        salts: [a.salt, b.salt, d.salt],
        items: [a, b, d].map(sweepItemOf),
      },
      {
        reference: expect.stringMatching(/^sweep:/),
        network: 'ETH',
        currency: 'USDCERC20',
        token: fakeTokenContract(CURRENCIES.USDCERC20),
        salts: [c.salt],
        items: [sweepItemOf(c)],
      },
    ]);
    for (const p of [a, b, d]) expect(await state(fake, p)).toMatchObject({ status: 'sending', sweepReference: sweep.requests[0]?.reference, version: 3 });
    const events = fake.payments.events.filter((e) => e.paymentId === a.id);
    expect(events.slice(-4).map((e) => [e.type, e.payload.status])).toEqual([
      ['payment_status_update', 'confirmed'],
      ['payment.processing', 'confirmed'],
      ['payment_status_update', 'sending'],
      ['payment.processing', 'sending'],
    ]);
    expect(new Set(events.map((e) => e.key)).size).toBe(events.length);
  });

  it("at most the port's maxSalts a request", async () => {
    const sweep = new RecordingSweep({ status: 'submitted' }, 2);
    await confirmedTogether(['USDTERC20', 'USDTERC20', 'USDTERC20', 'USDTERC20', 'USDTERC20'], sweep);
    expect(sweep.requests.map((r) => r.salts.length)).toEqual([2, 2, 1]);
    expect(new Set(sweep.requests.map((r) => r.reference)).size).toBe(3);
  });

  it('a port that answers done completes and credits every payment of the batch once', async () => {
    const sweep = new RecordingSweep({ status: 'done', txHash: '0xbatch' });
    const { fake, payments, report } = await confirmedTogether(['USDTERC20', 'USDTERC20', 'USDTERC20'], sweep);
    expect(report.settled).toBe(3);
    expect(sweep.requests).toHaveLength(1);
    for (const p of payments) expect(await state(fake, p)).toMatchObject({ status: 'completed', sweepTxHash: '0xbatch', merchantReceived: '24.75' });
    expect(fake.ledger.entries.map((e) => e.id).sort()).toEqual(payments.map((p) => `payment:${p.id}`).sort());
    expect(await fake.ledger.balance('t1', 'main', 'USDTERC20')).toEqual({ amount: '74.25', pending: '0', locked: '0' });
  });

  it("a batch's result settles each payment it carries: completed once, or all back to confirmed and then each alone", async () => {
    const sweep = new RecordingSweep();
    const { fake, chain, deps, payments } = await confirmedTogether(['USDTERC20', 'USDTERC20', 'USDTERC20'], sweep);
    const settlement = { ...fake, sweeps: sweep };
    const first = `ETH:${sweep.requests[0]?.reference}`;
    expect(await onSweepBatchResult(first, { ok: false }, settlement, fake.clock.now())).toEqual({ completed: 0, returned: 3, unchanged: 0 });
    for (const p of payments) expect(await state(fake, p)).toMatchObject({ status: 'confirmed', sweepReference: sweep.requests[0]?.reference });
    // Repeated: nothing is sending with it any more.
    expect(await onSweepBatchResult(first, { ok: false }, settlement, fake.clock.now())).toEqual({ completed: 0, returned: 0, unchanged: 3 });

    chain.head = 103;
    await scanOnce('ETH', deps);
    const retries = sweep.requests.slice(1);
    expect(retries.map((r) => r.items)).toEqual(payments.map((p) => [sweepItemOf(p)]));
    for (const r of retries)
      expect(await onSweepBatchResult(`ETH:${r.reference}`, { ok: true, txHash: `0x${r.reference.slice(-4)}` }, settlement, fake.clock.now())).toMatchObject({
        completed: 1,
      });
    for (const r of retries)
      expect(await onSweepBatchResult(`ETH:${r.reference}`, { ok: true, txHash: '0xagain' }, settlement, fake.clock.now())).toMatchObject({
        completed: 0,
        unchanged: 1,
      });
    for (const p of payments) expect(await state(fake, p)).toMatchObject({ status: 'completed', merchantReceived: '24.75' });
    expect(fake.ledger.entries).toHaveLength(3);
  });

  it('an unknown request is an error (the message comes back)', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    await expect(onSweepBatchResult('ETH:sweep:nope', { ok: false }, { ...fake, sweeps: new RecordingSweep() }, T0)).rejects.toThrow('No chain-tx request');
  });
});

describe('recovery of a batch whose pass died before its request', () => {
  it('its payments stay sending until idle, then go back and are swept again, the reference claimed', async () => {
    const sweep = new RecordingSweep();
    sweep.failNext = true;
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const chain = new FakeChain(100);
    const deps: ScanDeps = { ...fake, source: evmDepositSource(chain), sweep };
    await initCursor('ETH', 100, deps);
    const payments = await paid(fake, chain, ['USDTERC20', 'USDTERC20']);
    chain.head = 101;
    await scanOnce('ETH', deps);
    chain.head = 102;
    await expect(scanOnce('ETH', deps)).rejects.toThrow('the pass died');
    const stranded = (await state(fake, payments[0] as PaymentState))?.sweepReference as string;
    for (const p of payments) expect(await state(fake, p)).toMatchObject({ status: 'sending', sweepReference: stranded });
    expect(sweep.requests).toEqual([]);

    // Not idle long enough: left alone, nothing read, nothing written.
    fake.clock.advance(SWEEP_RECOVERY_AFTER_MS - 1_000);
    const saves = fake.payments.saves;
    await scanOnce('ETH', deps);
    expect([fake.payments.saves, sweep.requests.length, sweep.claimed]).toEqual([saves, 0, []]);

    fake.clock.advance(2_000);
    await scanOnce('ETH', deps);
    expect(sweep.claimed).toEqual([stranded]);
    // Back to confirmed and swept again in one save each, alone.
    expect(fake.payments.saves - saves).toBe(2);
    expect(sweep.requests.map((r) => r.items)).toEqual(payments.map((p) => [sweepItemOf(p)]));
    for (const [i, p] of payments.entries()) {
      expect(await state(fake, p)).toMatchObject({ status: 'sending', sweepReference: sweep.requests[i]?.reference });
      const events = fake.payments.events.filter((e) => e.paymentId === p.id).slice(-4);
      expect(events.map((e) => [e.type, e.payload.status, e.payload.previous_status])).toEqual([
        ['payment_status_update', 'confirmed', 'sending'],
        ['payment.processing', 'confirmed', 'sending'],
        ['payment_status_update', 'sending', 'confirmed'],
        ['payment.processing', 'sending', 'confirmed'],
      ]);
    }
  });

  it('payments a request carries are left to it, however long it takes', async () => {
    const sweep = new RecordingSweep();
    const { fake, deps, payments } = await confirmedTogether(['USDTERC20', 'USDTERC20'], sweep);
    fake.clock.advance(SWEEP_RECOVERY_AFTER_MS * 3);
    const saves = fake.payments.saves;
    await scanOnce('ETH', deps);
    expect([fake.payments.saves, sweep.requests.length, sweep.claimed]).toEqual([saves, 1, []]);
    for (const p of payments) expect((await state(fake, p))?.status).toBe('sending');
  });

  it('a port that cannot tell (no carried) leaves them sending', async () => {
    const sweep = new RecordingSweep();
    sweep.failNext = true;
    const port: SweepPort = { requestSweep: (r) => sweep.requestSweep(r) };
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const chain = new FakeChain(100);
    const deps: ScanDeps = { ...fake, source: evmDepositSource(chain), sweep: port };
    await initCursor('ETH', 100, deps);
    const [p] = await paid(fake, chain, ['USDTERC20']);
    chain.head = 101;
    await scanOnce('ETH', deps);
    chain.head = 102;
    await expect(scanOnce('ETH', deps)).rejects.toThrow();
    fake.clock.advance(SWEEP_RECOVERY_AFTER_MS * 2);
    await scanOnce('ETH', deps);
    expect((await state(fake, p as PaymentState))?.status).toBe('sending');
    expect(sweep.requests).toEqual([]);
  });
});

describe('results of single sweeps requested before batches', () => {
  it('complete a sending payment without a batch reference; leave a batched one to its batch', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await createPayment({ body: { amount: '25', currency: 'USDTERC20' }, tenant: aTenant(), now: T0 }, fake);
    const chain = new FakeChain(100);
    chain.pay(p, 101);
    const sweep = new RecordingSweep();
    const deps: ScanDeps = { ...fake, source: evmDepositSource(chain), sweep };
    await initCursor('ETH', 100, deps);
    chain.head = 101;
    await scanOnce('ETH', deps);
    // Confirmed, then sent as a single sweep was (no reference).
    const confirming = (await state(fake, p)) as PaymentState;
    const confirmed = await fake.payments.save(
      confirming,
      transition(
        confirming,
        { kind: 'confirmations', byDeposit: { [confirming.deposits[0]?.id ?? '']: 9 }, confirmationsNeeded: 2, tolerancePercent: '0' },
        T0,
      ),
      T0,
    );
    const single = await fake.payments.save(confirmed, transition(confirmed, { kind: 'sweep_started' }, T0), T0);
    expect(single.sweepReference).toBeUndefined();
    const done = await onSweepResult(sweepReference(p), { ok: true, txHash: '0xsingle' }, fake, T0);
    expect(done).toMatchObject({ status: 'completed', sweepTxHash: '0xsingle' });

    const q = aPayment({ id: 'q1', status: 'sending', sweepReference: 'sweep:b' });
    fake.payments.states.set(`t1|q1`, q);
    expect(await onSweepResult(sweepReference(q), { ok: false }, fake, T0)).toEqual(q);
  });
});

describe('onChainResult', () => {
  const event = (reference: string, type: 'chain_tx.confirmed' | 'chain_tx.failed') =>
    parseRoutedEvent(
      {
        event_id: 'e1',
        tenant_id: 'platform',
        type,
        occurred_at: T0.toISOString(),
        payload: { request_id: `ETH:${reference}`, network: 'ETH', reference, purpose: 'sweep', tx_hash: type === 'chain_tx.confirmed' ? '0xb' : null },
      },
      CHAIN_RESULT_EVENTS,
    );
  const clock = new VirtualClock(T0);

  it('hands a batched sweep to the batch settlement by request id, a single one by reference', async () => {
    const calls: unknown[][] = [];
    const settle: ChainResultSettlement = {
      sweep: async (...args) => calls.push(['sweep', ...args]),
      sweepBatch: async (...args) => calls.push(['sweepBatch', ...args]),
      withdrawal: async () => undefined,
    };
    expect(await onChainResult(event('sweep:b1', 'chain_tx.confirmed'), { settle, clock })).toBe('sweep_batch');
    expect(await onChainResult(event('sweep:b2', 'chain_tx.failed'), { settle, clock })).toBe('sweep_batch');
    expect(await onChainResult(event('payment:t1:p1', 'chain_tx.confirmed'), { settle, clock })).toBe('sweep');
    expect(calls).toEqual([
      ['sweepBatch', 'ETH:sweep:b1', { ok: true, txHash: '0xb' }, T0],
      ['sweepBatch', 'ETH:sweep:b2', { ok: false }, T0],
      ['sweep', 'payment:t1:p1', { ok: true, txHash: '0xb' }, T0],
    ]);
  });

  it('a worker without the batch settlement refuses a batched sweep (the message comes back)', async () => {
    const settle: ChainResultSettlement = { sweep: async () => undefined, withdrawal: async () => undefined };
    await expect(onChainResult(event('sweep:b1', 'chain_tx.confirmed'), { settle, clock })).rejects.toThrow('batched sweeps');
  });
});
