import type { BlockRef, EvmChainPort, TransferLog } from '../../../shared/chain/evm/scanner.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { transition } from '../../../shared/domain/payments.js';
import type { Tenant } from '../../../shared/domain/tenant.js';
import type { WriteItem } from '../../../shared/usecases/ports.js';
import { cancelPayment, UpdatePaymentBody, updatePayment } from '../../../shared/usecases/payments/change-payment.js';
import { CreatePaymentBody, createPayment } from '../../../shared/usecases/payments/create-payment.js';
import { expirePayments } from '../../../shared/usecases/payments/expire.js';
import { evmDepositSource } from '../../../shared/chain/evm/deposit-source.js';
import type { ScanDeps } from '../../../shared/usecases/scanner/scan.js';
import { initCursor, scanOnce } from '../../../shared/usecases/scanner/scan.js';
import { runScanners, wokenNetworks } from '../../../shared/usecases/scanner/run-scanners.js';
import type { EmitMetrics } from '../../../shared/observability/metrics.js';
import { METRIC_NAMES, METRIC_NAMESPACES, NETWORK_DIMENSION } from '../../../shared/observability/metrics.js';
import type { SweepOutcome, SweepPort, SweepRequest } from '../../../shared/usecases/payments/settle.js';
import { onSweepBatchResult, onSweepResult, sweepReference } from '../../../shared/usecases/payments/settle.js';
import type { FakePayments } from '../../support/fakes/payments.js';
import { fakePayments, fakeTokenContract } from '../../support/fakes/payments.js';
import { VirtualClock } from '../../support/clock.js';
import { aTenant } from '../../support/fakes/tenants.js';

/** The payment use cases against the in-memory ports: no DynamoDB, no chain, a virtual clock. */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const USDT = fakeTokenContract(CURRENCIES.USDTERC20) as string;
const tenant = aTenant();

const create = (fake: FakePayments, body: CreatePaymentBody = { amount: '25', currency: 'USDTERC20' }, who: Tenant = tenant) =>
  createPayment({ body, tenant: who, now: fake.clock.now() }, fake);

const hashOf = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

/** A chain whose head the test moves, with the Transfer logs it holds. */
class FakeChain implements EvmChainPort {
  calls = 0;
  readonly logs: TransferLog[] = [];

  constructor(public head: number) {}

  async blockNumber(): Promise<number> {
    this.calls++;
    return this.head;
  }

  async block(n: number): Promise<BlockRef | null> {
    this.calls++;
    return n <= this.head ? { number: n, hash: hashOf(n), parentHash: hashOf(n - 1), timestamp: n } : null;
  }

  async transferLogs(from: number, to: number, tokens: readonly string[]): Promise<TransferLog[]> {
    this.calls++;
    return this.logs.filter((l) => l.blockNumber >= from && l.blockNumber <= to && tokens.includes(l.token.toLowerCase()));
  }

  async transferLogsTo(from: number, to: number, tokens: readonly string[], recipient: string): Promise<TransferLog[]> {
    return (await this.transferLogs(from, to, tokens)).filter((l) => l.to === recipient.toLowerCase());
  }

  async balance(): Promise<bigint> {
    this.calls++;
    return 0n;
  }

  async nativeTransfers(): Promise<[]> {
    this.calls++;
    return [];
  }

  close(): void {}

  transfer(to: string, value: bigint, block: number, logIndex = 0): TransferLog {
    const log: TransferLog = {
      token: USDT,
      from: `0x${'01'.repeat(20)}`,
      to,
      value,
      txHash: hashOf(10_000 + block * 10 + logIndex),
      logIndex,
      blockNumber: block,
      blockHash: hashOf(block),
    };
    this.logs.push(log);
    return log;
  }
}

/** A sweep port that records the requests and answers what it is told; the requests read back as the engine keeps them. */
class FakeSweep implements SweepPort {
  readonly requests: SweepRequest[] = [];

  constructor(public answer: SweepOutcome) {}

  async requestSweep(request: SweepRequest): Promise<SweepOutcome> {
    this.requests.push(request);
    return this.answer;
  }

  async get(requestId: string): Promise<SweepRequest | undefined> {
    return this.requests.find((r) => `${r.network}:${r.reference}` === requestId);
  }
}

const scanDeps = (fake: FakePayments, chain: FakeChain, sweep: SweepPort): ScanDeps => ({ ...fake, source: evmDepositSource(chain), sweep });

describe('createPayment', () => {
  it('prices the payment, takes a deposit address, sets the expiry and announces payment.created', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake, { amount: '25', currency: 'USDTERC20', order_id: 'o-1' });
    expect(p).toMatchObject({
      tenantId: 't1',
      status: 'waiting',
      currency: 'USDTERC20',
      network: 'ETH',
      amountCrypto: '25',
      priceCrypto: '25',
      fee: '0.25',
      feePercent: '1',
      amountUsd: '25.00',
      orderId: 'o-1',
      version: 1,
      expiryTime: '2026-01-01T01:00:00.000Z',
      createdAt: T0.toISOString(),
    });
    expect(p.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(await fake.payments.get('t1', p.id)).toEqual(p);
    expect((await fake.payments.matchAddresses('evm', [p.address]))[0]).toMatchObject({ paymentId: p.id, tenantId: 't1' });
    expect(fake.payments.events.map((e) => [e.paymentId, e.type, e.key])).toEqual([[p.id, 'payment.created', 'created']]);
    expect(fake.payments.events[0]?.payload).toMatchObject({
      transaction_id: p.id,
      status: 'waiting',
      pay_amount: '25',
      pay_currency: 'USDTERC20',
      blockchain_address: p.address,
    });
  });

  it('the customer pays the fee when told; the expiry follows expiry_minutes', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake, { amount: '100', price_currency: 'EUR', currency: 'USDTERC20', is_fee_paid_by_user: true, expiry_minutes: 15 });
    expect([p.priceCrypto, p.fee, p.amountCrypto, p.amountUsd, p.expiryTime]).toEqual(['110', '1.1', '111.1', '110.00', '2026-01-01T00:15:00.000Z']);
  });

  it('refuses a payment past the daily limit and stores nothing', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const limited = aTenant({ settings: { ...tenant.settings, limits: { ...tenant.settings.limits, daily_payment_limit: '40' } } });
    await create(fake, { amount: '25', currency: 'USDTERC20' }, limited);
    await expect(create(fake, { amount: '25', currency: 'USDTERC20' }, limited)).rejects.toMatchObject({
      name: 'DailyLimitError',
      code: 'invalid_request',
      status: 400,
    });
    expect(await fake.payments.count('t1')).toBe(1);
    expect(fake.payments.events).toHaveLength(1);
    // The next day counts afresh.
    fake.clock.advance(86_400_000);
    expect((await create(fake, { amount: '25', currency: 'USDTERC20' }, limited)).status).toBe('waiting');
  });

  it('an unknown currency is 422 invalid_currency naming the supported ones', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    // Currencies of networks without deposit addresses here are not offered.
    await expect(create(fake, { amount: '25', currency: 'DOGE' })).rejects.toMatchObject({
      code: 'invalid_currency',
      status: 422,
      details: { field: 'currency', currency: 'DOGE', supported_currencies: expect.arrayContaining(['USDTERC20', 'ETH']) },
    });
    await expect(create(fake, { amount: '25', currency: 'USDTTRC20' })).rejects.toMatchObject({
      details: { supported_currencies: expect.not.arrayContaining(['USDTTRC20']) },
    });
    expect(await fake.payments.count('t1')).toBe(0);
  });

  it('commits the Idempotency-Key record with the payment, built from it as stored', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const seen: PaymentState[] = [];
    const guard = {
      completeItem: (stored: PaymentState) => {
        seen.push(stored);
        return { idempotency: stored.id } as unknown as WriteItem;
      },
    };
    const p = await createPayment({ body: { amount: '25', currency: 'USDTERC20' }, tenant, now: fake.clock.now(), idempotency: guard }, fake);
    expect(seen).toEqual([p]);
    expect(fake.payments.alsoWritten).toEqual([{ idempotency: p.id }]);
  });
});

describe('CreatePaymentBody', () => {
  const fields = (body: unknown) =>
    CreatePaymentBody()
      .safeParse(body)
      .error?.issues.map((i) => i.path.join('.'))
      .sort();

  it('reports every field at once: a missing amount with an over-long order_id gets both', () => {
    expect(fields({ currency: 'USDTERC20', order_id: 'x'.repeat(101) })).toEqual(['amount', 'order_id']);
    expect(fields({ order_id: 'x'.repeat(101), expiry_minutes: 0 })).toEqual(['amount', 'currency', 'expiry_minutes', 'order_id']);
    expect(fields({ amount: '10', blockchain: 'ETH', custom_id: 'x'.repeat(65) })).toEqual(['custom_id', 'token']);
    expect(fields({ amount: '0', token: 'USDT' })).toEqual(['amount', 'blockchain']);
    expect(fields({ price_amount: '1.123456789', pay_currency: 'USDTERC20' })).toEqual(['price_amount']);
    expect(fields({ amount: '10', currency: 'USDTERC20' })).toBeUndefined();
    expect(fields({ price_amount: '10', blockchain: 'ETH', token: 'USDT' })).toBeUndefined();
  });
});

describe('updatePayment and cancelPayment', () => {
  it('edits the open fields with a version bump; cancels a waiting payment with its events', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake);
    fake.clock.advance(60_000);
    const edited = await updatePayment('t1', p.id, { order_id: 'o-2', order_description: null }, fake.clock.now(), fake);
    expect([edited.orderId, edited.orderDescription, edited.version, edited.updatedAt]).toEqual(['o-2', null, 2, '2026-01-01T00:01:00.000Z']);
    await expect(updatePayment('t1', p.id, {}, fake.clock.now(), fake)).rejects.toMatchObject({ code: 'invalid_request' });

    const cancelled = await cancelPayment('t1', p.id, fake.clock.now(), fake);
    expect([cancelled.status, cancelled.version]).toEqual(['cancelled', 3]);
    expect(fake.payments.events.slice(1).map((e) => [e.type, e.key])).toEqual([
      ['payment_status_update', 'status:3:cancelled'],
      ['payment.failed', 'payment.failed:3'],
    ]);
    // Cancelled is final: a second cancel and an edit are refused.
    await expect(cancelPayment('t1', p.id, fake.clock.now(), fake)).rejects.toMatchObject({ code: 'invalid_state' });
    await expect(updatePayment('t1', p.id, { order_id: 'x' }, fake.clock.now(), fake)).rejects.toMatchObject({ code: 'invalid_state', status: 409 });
    await expect(cancelPayment('t1', '00000000-0000-4000-8000-000000000000', fake.clock.now(), fake)).rejects.toMatchObject({ code: 'not_found' });
  });

  it("PATCH accepts the spec's description as well as order_description; both given and different is 400", async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake);
    const body = UpdatePaymentBody().parse({ description: 'Blue mug' });
    const edited = await updatePayment('t1', p.id, body, fake.clock.now(), fake);
    expect(edited.orderDescription).toBe('Blue mug');
    expect(UpdatePaymentBody().parse({ description: 'Mug', order_description: 'Mug' })).toEqual({ order_description: 'Mug' });
    expect(UpdatePaymentBody().parse({ description: null })).toEqual({ order_description: null });
    const both = UpdatePaymentBody().safeParse({ description: 'Mug', order_description: 'Cup' });
    expect(both.success).toBe(false);
    expect(both.error?.issues.map((i) => i.path.join('.'))).toEqual(['description']);
  });

  it('cancelling a paid payment is 409 invalid_state and changes nothing', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake);
    const chain = new FakeChain(100);
    await initCursor('ETH', 100, { ...fake, source: evmDepositSource(chain) });
    chain.transfer(p.address, 25_000_000n, 101);
    chain.head = 102;
    await scanOnce('ETH', scanDeps(fake, chain, new FakeSweep({ status: 'done', txHash: '0xsweep' })));
    const paid = await fake.payments.get('t1', p.id);
    expect(paid?.status).toBe('completed');
    const [saves, events, entries] = [fake.payments.saves, fake.payments.events.length, fake.ledger.entries.length];

    await expect(cancelPayment('t1', p.id, fake.clock.now(), fake)).rejects.toMatchObject({
      code: 'invalid_state',
      status: 409,
      details: { status: 'completed', action: 'cancel' },
    });
    expect(await fake.payments.get('t1', p.id)).toEqual(paid);
    expect([fake.payments.saves, fake.payments.events.length, fake.ledger.entries.length]).toEqual([saves, events, entries]);
  });

  it('a payment that received a deposit cannot be cancelled either', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake);
    const chain = new FakeChain(100);
    await initCursor('ETH', 100, { ...fake, source: evmDepositSource(chain) });
    chain.transfer(p.address, 5_000_000n, 101);
    chain.head = 101;
    await scanOnce('ETH', scanDeps(fake, chain, new FakeSweep({ status: 'submitted' })));
    expect((await fake.payments.get('t1', p.id))?.status).toBe('confirming');
    await expect(cancelPayment('t1', p.id, fake.clock.now(), fake)).rejects.toMatchObject({
      code: 'invalid_state',
      details: { status: 'confirming', deposits: 1 },
    });
    expect((await fake.payments.get('t1', p.id))?.status).toBe('confirming');
  });
});

describe('expirePayments', () => {
  it('moves waiting payments to expired once their expiry has passed, once', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const soon = await create(fake, { amount: '25', currency: 'USDTERC20', expiry_minutes: 10 });
    const later = await create(fake, { amount: '25', currency: 'USDTERC20', expiry_minutes: 30 });
    fake.clock.advance(9 * 60_000);
    expect(await expirePayments(fake)).toEqual({ expired: 0 });
    fake.clock.advance(60_000);
    expect(await expirePayments(fake)).toEqual({ expired: 1 });
    const expired = await fake.payments.get('t1', soon.id);
    expect([expired?.status, expired?.version, expired?.updatedAt]).toEqual(['expired', 2, '2026-01-01T00:10:00.000Z']);
    expect((await fake.payments.get('t1', later.id))?.status).toBe('waiting');
    expect(fake.payments.events.filter((e) => e.paymentId === soon.id).map((e) => e.type)).toEqual([
      'payment.created',
      'payment_status_update',
      'payment.expired',
    ]);
    expect(await expirePayments(fake)).toEqual({ expired: 0 });
    fake.clock.advance(20 * 60_000);
    expect(await expirePayments(fake, 1)).toEqual({ expired: 1 });
    expect((await fake.payments.get('t1', later.id))?.status).toBe('expired');
  });

  it('leaves alone a payment that changed meanwhile', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake, { amount: '25', currency: 'USDTERC20', expiry_minutes: 10 });
    fake.clock.advance(11 * 60_000);
    // The queue answers the payment as read before an edit moved its version.
    const stale = await fake.payments.get('t1', p.id);
    await updatePayment('t1', p.id, { order_id: 'o-3' }, fake.clock.now(), fake);
    const payments = Object.assign(Object.create(fake.payments) as typeof fake.payments, { due: async () => (stale ? [stale] : []) });
    expect(await expirePayments({ payments, clock: fake.clock })).toEqual({ expired: 0 });
    expect((await fake.payments.get('t1', p.id))?.status).toBe('waiting');
  });
});

describe('scanOnce and settlement', () => {
  it('a pass reads a payment once: the deposit is recorded from one read and the payment settled from that save', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake);
    const chain = new FakeChain(100);
    const deps = scanDeps(fake, chain, new FakeSweep({ status: 'done', txHash: '0xsweep' }));
    await initCursor('ETH', 100, deps);
    chain.transfer(p.address, 25_000_000n, 101);
    chain.head = 102; // two confirmations when first seen: recorded, confirmed and swept in this pass
    fake.payments.gets = 0;
    expect(await scanOnce('ETH', deps)).toMatchObject({ recorded: 1, settled: 1 });
    // One read to record the deposit; confirming, sweeping and completing work from the saved copies.
    expect(fake.payments.gets).toBe(1);
    expect((await fake.payments.get('t1', p.id))?.status).toBe('completed');
  });

  it('an open payment listed behind its stored version is left for the next pass, the others settled', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const [a, b] = [await create(fake), await create(fake)];
    const chain = new FakeChain(100);
    const sweep = new FakeSweep({ status: 'done', txHash: '0xsweep' });
    const deps = scanDeps(fake, chain, sweep);
    await initCursor('ETH', 100, deps);
    chain.transfer(a.address, 25_000_000n, 101);
    chain.transfer(b.address, 25_000_000n, 101, 1);
    chain.head = 101;
    expect(await scanOnce('ETH', deps)).toMatchObject({ recorded: 2, settled: 0 });
    // The index lags: it still lists a's copy from before a change the merchant made since.
    const listed = await fake.payments.open('ETH');
    const aListed = listed.find((x) => x.id === a.id) as PaymentState;
    await fake.payments.save(aListed, transition(aListed, { kind: 'edit', changes: { orderId: 'edited' } }, T0), T0);
    const open = fake.payments.open.bind(fake.payments);
    fake.payments.open = async () => listed;
    chain.head = 102;
    expect(await scanOnce('ETH', deps)).toMatchObject({ settled: 1 });
    expect([(await fake.payments.get('t1', a.id))?.status, (await fake.payments.get('t1', b.id))?.status]).toEqual(['confirming', 'completed']);
    fake.payments.open = open;
    chain.head = 103;
    expect(await scanOnce('ETH', deps)).toMatchObject({ settled: 1 });
    expect(await fake.payments.get('t1', a.id)).toMatchObject({ status: 'completed', orderId: 'edited' });
    expect(fake.ledger.entries.map((e) => e.id).sort()).toEqual([`payment:${a.id}`, `payment:${b.id}`].sort());
  });

  it('waiting -> confirming -> confirmed -> completed: the merchant is credited net of the fee, exactly once', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake);
    const other = await create(fake);
    const chain = new FakeChain(100);
    const sweep = new FakeSweep({ status: 'done', txHash: '0xsweep' });
    const deps = scanDeps(fake, chain, sweep);
    await initCursor('ETH', 100, deps);
    const log = chain.transfer(p.address, 25_000_000n, 101);
    chain.transfer(`0x${'02'.repeat(20)}`, 7n, 101, 1); // to an address nobody watches

    chain.head = 101;
    expect(await scanOnce('ETH', deps)).toMatchObject({ from: 101, to: 101, logs: 2, recorded: 1, settled: 0, rewoundTo: null });
    const confirming = await fake.payments.get('t1', p.id);
    expect(confirming).toMatchObject({ status: 'confirming', transactionHash: log.txHash });
    expect(confirming?.deposits).toEqual([
      expect.objectContaining({ id: `ETH:${log.txHash}:0`, amount: '25', amountBase: '25000000', confirmations: 1, status: 'pending' }),
    ]);
    expect((await fake.payments.get('t1', other.id))?.status).toBe('waiting');
    expect(sweep.requests).toEqual([]);

    chain.head = 102;
    const savesBefore = fake.payments.saves;
    expect(await scanOnce('ETH', deps)).toMatchObject({ from: 102, to: 102, recorded: 0, settled: 1 });
    const done = await fake.payments.get('t1', p.id);
    expect(done).toMatchObject({ status: 'completed', sweepTxHash: '0xsweep', merchantReceived: '24.75', merchantReceivedUsd: '24.75' });
    expect(sweep.requests).toEqual([
      { reference: expect.stringMatching(/^sweep:/), network: 'ETH', currency: 'USDTERC20', token: USDT, salts: [p.salt], items: [`t1:${p.id}`] },
    ]);
    expect(done?.sweepReference).toBe(sweep.requests[0]?.reference);
    // Confirmed and sending in one save, then completed.
    expect(fake.payments.saves - savesBefore).toBe(2);
    expect(await fake.ledger.balance('t1', 'main', 'USDTERC20')).toEqual({ amount: '24.75', pending: '0', locked: '0' });
    expect(await fake.ledger.platformBalances('platform:fees')).toEqual({ USDTERC20: '0.25' });
    expect(fake.ledger.entries.map((e) => [e.id, e.type])).toEqual([[`payment:${p.id}`, 'payment']]);

    const events = fake.payments.events.filter((e) => e.paymentId === p.id);
    expect(events.map((e) => e.type)).toEqual([
      'payment.created',
      'deposit_received',
      'payment_status_update',
      'payment.processing',
      'payment_status_update',
      'payment.processing',
      'payment_status_update',
      'payment.processing',
      'deposit_merged',
      'payment_status_update',
      'payment.completed',
    ]);
    expect(events.filter((e) => e.type === 'payment_status_update').map((e) => e.payload.status)).toEqual(['confirming', 'confirmed', 'sending', 'completed']);
    expect(new Set(events.map((e) => e.key)).size).toBe(events.length);

    // A second pass over the same logs records nothing and credits nothing.
    await initCursor('ETH', 100, deps);
    const [saves, count] = [fake.payments.saves, fake.payments.events.length];
    expect(await scanOnce('ETH', deps)).toMatchObject({ from: 101, to: 102, logs: 2, recorded: 0, settled: 0 });
    expect([fake.payments.saves, fake.payments.events.length, fake.ledger.entries.length, sweep.requests.length]).toEqual([saves, count, 1, 1]);
    expect(await fake.ledger.balance('t1', 'main', 'USDTERC20')).toEqual({ amount: '24.75', pending: '0', locked: '0' });
  });

  it('a deposit the repository already holds is not recorded again (DepositAlreadyRecordedError)', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake);
    const chain = new FakeChain(100);
    const deps = scanDeps(fake, chain, new FakeSweep({ status: 'submitted' }));
    await initCursor('ETH', 100, deps);
    const log = chain.transfer(p.address, 25_000_000n, 101);
    chain.head = 101;
    // Recorded by another pass whose payment write this one did not see.
    fake.payments.deposits.add(`ETH:${log.txHash}:0`);
    const saves = fake.payments.saves;
    expect(await scanOnce('ETH', deps)).toMatchObject({ logs: 1, recorded: 0 });
    expect(await fake.payments.get('t1', p.id)).toMatchObject({ status: 'waiting', deposits: [], version: 1 });
    expect(fake.payments.saves).toBe(saves);
    expect(fake.payments.events.map((e) => e.type)).toEqual(['payment.created']);
  });

  it('a failed sweep puts the payment back to confirmed; the next pass sweeps again and completes on the result', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake);
    const chain = new FakeChain(100);
    const sweep = new FakeSweep({ status: 'submitted' });
    const deps = scanDeps(fake, chain, sweep);
    await initCursor('ETH', 100, deps);
    chain.transfer(p.address, 25_000_000n, 101);
    chain.head = 102;
    expect(await scanOnce('ETH', deps)).toMatchObject({ recorded: 1, settled: 0 });
    expect((await fake.payments.get('t1', p.id))?.status).toBe('sending');
    expect(sweep.requests).toHaveLength(1);

    const settlement = { ...fake, sweeps: sweep };
    const first = `ETH:${sweep.requests[0]?.reference}`;

    fake.clock.advance(60_000);
    expect(await onSweepBatchResult(first, { ok: false }, settlement, fake.clock.now())).toEqual({ completed: 0, returned: 1, unchanged: 0 });
    const back = await fake.payments.get('t1', p.id);
    expect(back).toMatchObject({ status: 'confirmed', merchantReceived: null, sweepReference: sweep.requests[0]?.reference });
    expect(fake.payments.events.at(-2)).toMatchObject({ type: 'payment_status_update', payload: { status: 'confirmed', previous_status: 'sending' } });
    expect(fake.ledger.entries).toEqual([]);
    // A result for a payment that is not sending changes nothing; a reference of something else is ignored.
    expect(await onSweepBatchResult(first, { ok: true, txHash: '0xlate' }, settlement, fake.clock.now())).toEqual({ completed: 0, returned: 0, unchanged: 1 });
    expect(await onSweepResult(sweepReference(p), { ok: true, txHash: '0xlate' }, fake, fake.clock.now())).toEqual(back);
    expect(await onSweepResult('withdrawal:w1', { ok: false }, fake, fake.clock.now())).toBeNull();
    expect(fake.ledger.entries).toEqual([]);

    chain.head = 103;
    await scanOnce('ETH', deps);
    expect(sweep.requests).toHaveLength(2);
    const again = await fake.payments.get('t1', p.id);
    expect(again).toMatchObject({ status: 'sending', sweepReference: sweep.requests[1]?.reference });
    expect(sweep.requests[1]?.reference).not.toBe(sweep.requests[0]?.reference);
    // The late success of the first sweep is not this payment's any more.
    expect(await onSweepBatchResult(first, { ok: true, txHash: '0xlate' }, settlement, fake.clock.now())).toMatchObject({ unchanged: 1 });
    const second = `ETH:${sweep.requests[1]?.reference}`;
    expect(await onSweepBatchResult(second, { ok: true, txHash: '0xswept' }, settlement, fake.clock.now())).toMatchObject({ completed: 1 });
    const done = await fake.payments.get('t1', p.id);
    expect(done).toMatchObject({ status: 'completed', sweepTxHash: '0xswept', merchantReceived: '24.75' });
    expect(await fake.ledger.balance('t1', 'main', 'USDTERC20')).toEqual({ amount: '24.75', pending: '0', locked: '0' });
    // A repeated result credits nothing more.
    expect(await onSweepBatchResult(second, { ok: true, txHash: '0xswept' }, settlement, fake.clock.now())).toMatchObject({ completed: 0, unchanged: 1 });
    expect(await fake.payments.get('t1', p.id)).toEqual(done);
    expect(fake.ledger.entries).toHaveLength(1);
  });
});

describe('runScanners', () => {
  it("prints each network's blocks behind the tip once per run, where its cursor stands after the last pass", async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const chain = new FakeChain(100);
    const sweep = new FakeSweep({ status: 'done', txHash: '0xsweep' });
    await initCursor('ETH', 100, scanDeps(fake, chain, sweep));
    chain.head = 1_000;
    const printed: Parameters<EmitMetrics>[] = [];
    const emit: EmitMetrics = (...args) => {
      printed.push(args);
    };
    const network = { network: 'ETH', family: 'evm', url: 'http://eth.invalid' };
    // A budget of 0: one pass, the default range of 500 blocks (101-600) of the 900 new ones.
    const reports = await runScanners(
      { budgetMs: 0, pauseMs: 0 },
      { ...fake, networks: [network], sourceFor: () => evmDepositSource(chain), sweepFor: () => sweep, emit },
    );
    expect(reports).toEqual([expect.objectContaining({ from: 101, to: 600, behind: 400 })]);
    expect(printed).toEqual([[METRIC_NAMESPACES.scanner, { [NETWORK_DIMENSION]: 'ETH' }, [{ name: METRIC_NAMES.scannerBlocksBehind, value: 400 }]]]);
  });
});

/** The cursor store's calls (each a table call in production) and the `watching` questions, counted. */
function counted(fake: FakePayments, answers: boolean[]) {
  const calls: string[] = [];
  const cursors = fake.cursors;
  const store = {
    get: (network: string) => (calls.push('get'), cursors.get(network)),
    move: (...args: Parameters<typeof cursors.move>) => (calls.push('move'), cursors.move(...args)),
    acquireLease: (...args: Parameters<typeof cursors.acquireLease>) => (calls.push('acquireLease'), cursors.acquireLease(...args)),
    releaseLease: (...args: Parameters<typeof cursors.releaseLease>) => (calls.push('releaseLease'), cursors.releaseLease(...args)),
    leaseHeld: (...args: Parameters<typeof cursors.leaseHeld>) => (calls.push('leaseHeld'), cursors.leaseHeld(...args)),
  };
  const watching = async (): Promise<boolean> => {
    calls.push('watching');
    return answers.shift() ?? false;
  };
  return { calls, store, watching };
}

describe('runScanners, idle', () => {
  it('a network with nothing to watch gets one pass and the loop ends: no spinning, no write of a pass that changed nothing', async () => {
    // The clock does not move: only `watching` can end the loop before its (minute-long) budget.
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const chain = new FakeChain(100);
    const sweep = new FakeSweep({ status: 'done', txHash: '0xsweep' });
    await initCursor('ETH', 100, scanDeps(fake, chain, sweep));
    const { calls, store, watching } = counted(fake, []);
    const network = { network: 'ETH', family: 'evm', url: 'http://eth.invalid' };
    const printed: unknown[] = [];
    const reports = await runScanners(
      { budgetMs: 60_000, pauseMs: 0 },
      {
        ...fake,
        cursors: store,
        networks: [network],
        sourceFor: () => evmDepositSource(chain),
        sweepFor: () => sweep,
        watching,
        emit: (...a) => printed.push(a),
      },
    );
    expect(reports).toHaveLength(1);
    // Lease, cursor read, lease released; asked once; no cursor move (no new block), no lag printed (caught up).
    expect(calls).toEqual(['acquireLease', 'get', 'watching', 'releaseLease']);
    expect(printed).toEqual([]);
  });

  it('keeps its sub-minute loop while the network has something to watch, and stops once it has none', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const chain = new FakeChain(100);
    const sweep = new FakeSweep({ status: 'done', txHash: '0xsweep' });
    await initCursor('ETH', 100, scanDeps(fake, chain, sweep));
    const { calls, store, watching } = counted(fake, [true, true]);
    const network = { network: 'ETH', family: 'evm', url: 'http://eth.invalid' };
    const reports = await runScanners(
      { budgetMs: 60_000, pauseMs: 0 },
      { ...fake, cursors: store, networks: [network], sourceFor: () => evmDepositSource(chain), sweepFor: () => sweep, watching },
    );
    expect(reports).toHaveLength(3);
    expect(calls.filter((c) => c === 'watching')).toHaveLength(3);
  });

  it('a pass that found a deposit is followed by another without asking (the payment is being watched)', async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const chain = new FakeChain(100);
    const sweep = new FakeSweep({ status: 'done', txHash: '0xsweep' });
    await initCursor('ETH', 100, scanDeps(fake, chain, sweep));
    const created = await create(fake);
    chain.transfer(created.address, 25_000_000n, 101);
    chain.head = 101;
    const { calls, store, watching } = counted(fake, []);
    const network = { network: 'ETH', family: 'evm', url: 'http://eth.invalid' };
    const reports = await runScanners(
      { budgetMs: 60_000, pauseMs: 0 },
      { ...fake, cursors: store, networks: [network], sourceFor: () => evmDepositSource(chain), sweepFor: () => sweep, watching },
    );
    expect(reports.map((r) => r.recorded)).toEqual([1, 0]);
    expect(calls.filter((c) => c === 'watching')).toHaveLength(1);
  });
});

describe('runScanners, woken by a payment', () => {
  const eth = { network: 'ETH', family: 'evm', url: 'http://eth.invalid' };
  const polygon = { network: 'POLYGON', family: 'evm', url: 'http://polygon.invalid' };

  async function scanning() {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const chain = new FakeChain(100);
    const sweep = new FakeSweep({ status: 'done', txHash: '0xsweep' });
    await initCursor('ETH', 100, scanDeps(fake, chain, sweep));
    await initCursor('POLYGON', 100, scanDeps(fake, chain, sweep));
    const { calls, store, watching } = counted(fake, []);
    const sourced: string[] = [];
    const deps = {
      ...fake,
      cursors: store,
      networks: [eth, polygon],
      sourceFor: (n: { network: string }) => (sourced.push(n.network), evmDepositSource(chain)),
      sweepFor: () => sweep,
      watching,
    };
    return { fake, calls, deps, sourced };
  }

  it('scans only the networks of the payments that woke it', async () => {
    const { deps, sourced } = await scanning();
    const reports = await runScanners({ budgetMs: 60_000, pauseMs: 0, woken: ['POLYGON'] }, deps);
    expect(reports).toHaveLength(1);
    expect(sourced).toEqual(['POLYGON']);
  });

  it('leaves a network whose lease another run holds to that run, reading it once', async () => {
    const { fake, calls, deps, sourced } = await scanning();
    await fake.cursors.acquireLease('ETH', 'scheduled run', T0, new Date(T0.getTime() + 90_000));
    const reports = await runScanners({ budgetMs: 60_000, pauseMs: 0, woken: ['ETH'] }, deps);
    expect(reports).toEqual([]);
    expect(sourced).toEqual([]);
    // A read, no refused write of the (several KB) cursor item.
    expect(calls).toEqual(['leaseHeld']);
  });

  it('a scheduled run waits for a lease a woken run holds, then scans from there', async () => {
    const { fake, calls, deps, sourced } = await scanning();
    await fake.cursors.acquireLease('ETH', 'woken run', T0, new Date(T0.getTime() + 90_000));
    // The woken run releases its lease after the scheduled run's third question.
    const acquire = deps.cursors.acquireLease;
    let asked = 0;
    const cursors = {
      ...deps.cursors,
      acquireLease: async (...args: Parameters<typeof acquire>) => {
        if (++asked === 3) await fake.cursors.releaseLease('ETH', 'woken run');
        return acquire(...args);
      },
    };
    const reports = await runScanners({ budgetMs: 60_000, pauseMs: 0, leaseRetryMs: 1 }, { ...deps, networks: [eth], cursors });
    expect(reports).toHaveLength(1);
    expect(sourced).toEqual(['ETH']);
    expect(calls.filter((c) => c === 'acquireLease')).toHaveLength(3);
  });

  it('a scheduled run stops asking when its budget would be over', async () => {
    const { fake, calls, deps } = await scanning();
    await fake.cursors.acquireLease('ETH', 'woken run', T0, new Date(T0.getTime() + 90_000));
    const reports = await runScanners({ budgetMs: 10, pauseMs: 0, leaseRetryMs: 1 }, { ...deps, networks: [eth] });
    expect(reports).toEqual([]);
    expect(calls.filter((c) => c === 'acquireLease')).toHaveLength(10);
  });

  it('reads the networks from the routed payment.created events, ignoring what is not one', () => {
    const created = (currency: string) =>
      JSON.stringify({
        event_id: `payment:${currency}:created`,
        tenant_id: 't1',
        type: 'payment.created',
        occurred_at: T0.toISOString(),
        payload: { transaction_id: 'p1', status: 'waiting', previous_status: null, pay_amount: '25', pay_currency: currency },
      });
    expect(
      wokenNetworks([created('USDTERC20'), created('USDTPOLYGON'), created('ETH'), 'not json', JSON.stringify({ type: 'payment.completed' })]).sort(),
    ).toEqual(['ETH', 'POLYGON']);
  });
});
