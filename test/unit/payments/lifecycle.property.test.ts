import fc from 'fast-check';
import { ConflictError } from '../../../shared/domain/errors.js';
import { linesOf } from '../../../shared/domain/ledger.js';
import type { Decimal } from '../../../shared/domain/money.js';
import { add, fromBaseUnits, isZero, lte, sum, toBaseUnits } from '../../../shared/domain/money.js';
import type { Deposit, DepositStatus, PaymentChange, PaymentEvent, PaymentFact, PaymentState, PaymentStatus } from '../../../shared/domain/payments.js';
import { messageBody, outboxEventsOfItem, outboxItemOf } from '../../../shared/store/outbox.js';
import { paymentOutbox } from '../../../shared/store/payments.js';
import { isCancellable, isEditable, isTerminal, merchantCredit, openPayment, PAYMENT_STATUSES, received, transition } from '../../../shared/domain/payments.js';

/**
 * The payment lifecycle as a state machine: from any reachable state, a fact the guards allow moves it (and the
 * invariants hold), a fact they forbid is a ConflictError `invalid_state`.
 */

const T0 = new Date('2026-01-01T00:00:00.000Z');
type FactKind = PaymentFact['kind'];
const FACT_KINDS: readonly FactKind[] = [
  'deposit',
  'confirmations',
  'reorg',
  'deposit_mined',
  'sweep_started',
  'sweep_completed',
  'sweep_failed',
  'expire',
  'cancel',
  'edit',
  'settle_for_refund',
];

/**
 * Which facts each status takes (for a payment holding one counting deposit, which a reorg drops; `cancel` with
 * no deposit at all). A change of a guard must change this table too.
 */
const ALLOWED: Readonly<Record<PaymentStatus, readonly FactKind[]>> = {
  waiting: ['deposit', 'confirmations', 'deposit_mined', 'reorg', 'expire', 'cancel', 'edit'],
  confirming: ['deposit', 'confirmations', 'deposit_mined', 'reorg', 'edit'],
  confirmed: ['deposit', 'confirmations', 'deposit_mined', 'reorg', 'sweep_started', 'edit'],
  sending: ['deposit', 'confirmations', 'deposit_mined', 'sweep_completed', 'sweep_failed'],
  completed: ['deposit', 'confirmations', 'deposit_mined'],
  expired: ['deposit', 'confirmations', 'deposit_mined', 'reorg', 'edit'],
  failed: ['deposit', 'confirmations', 'deposit_mined'],
  cancelled: ['deposit', 'confirmations', 'deposit_mined'],
  partially_paid: ['deposit', 'confirmations', 'deposit_mined', 'reorg', 'edit', 'settle_for_refund'],
};

/** What the guards say of a fact. */
function guardAllows(p: PaymentState, fact: PaymentFact): boolean {
  switch (fact.kind) {
    case 'deposit':
    case 'confirmations':
      return true;
    case 'deposit_mined':
      return fact.blockNumber >= 0;
    case 'reorg': {
      const losesOne = p.deposits.some((d) => fact.depositIds.includes(d.id));
      return !losesOne || !(p.status === 'sending' || isTerminal(p.status));
    }
    case 'sweep_started':
      return p.status === 'confirmed';
    case 'sweep_completed':
    case 'sweep_failed':
      return p.status === 'sending';
    case 'expire':
      return p.status === 'waiting';
    case 'cancel':
      return isCancellable(p);
    case 'edit':
      return isEditable(p.status);
    case 'settle_for_refund':
      return p.status === 'partially_paid' && Date.parse(p.expiryTime) <= T0.getTime();
  }
}

const deposit = (id: string, amountBase: bigint, status: DepositStatus = 'pending', late = false, at = T0): Deposit => ({
  id,
  currency: status === 'wrong_currency' ? 'USDCERC20' : 'USDTERC20',
  amount: fromBaseUnits(amountBase, 6),
  amountBase: amountBase.toString(),
  txHash: `0x${id}`,
  logIndex: 0,
  blockNumber: 10,
  blockHash: '0xb',
  confirmations: 1,
  detectedAt: at.toISOString(),
  status,
  late,
});

const cents = (n: number): Decimal => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;

function opened(amountCrypto: Decimal, fee: Decimal, isFixedRate: boolean): PaymentChange {
  return openPayment(
    {
      id: 'p-1',
      tenantId: 't1',
      currency: 'USDTERC20',
      network: 'ETH',
      token: 'USDT',
      decimals: 6,
      priceAmount: amountCrypto,
      priceCurrency: 'USD',
      amountUsd: amountCrypto,
      amountCrypto,
      priceCrypto: amountCrypto,
      fee,
      feePercent: '1',
      address: '0xaa00000000000000000000000000000000000001',
      salt: '0x01',
      isFixedRate,
      isFeePaidByUser: false,
      orderId: null,
      orderDescription: null,
      callbackUrl: null,
      customId: null,
      walletId: null,
      customerEmail: null,
      checkoutId: 'Q2hlY2tvdXRQYWdlT2ZQMQ',
      successUrl: null,
      cancelUrl: null,
      expiryTime: new Date(T0.getTime() + 3_600_000).toISOString(),
    },
    T0,
  );
}

/** The repository's part: version 1 when created, +1 on every save. */
const stored = (change: PaymentChange, previous: PaymentState | null): PaymentState => ({
  ...change.state,
  version: previous === null ? 1 : previous.version + 1,
});

const POOL = ['d1', 'd2', 'd3', 'd4'];

/**
 * The events of a change saved as `saved`, as its one outbox item holds them (shared/store/outbox.ts): read back,
 * each has its natural id, the type and payload the transition announced plus the callback URL, and the time the
 * saved state was updated; the item stays within one write unit.
 */
function expectWrittenAsAnnounced(saved: PaymentState, events: readonly PaymentEvent[]): void {
  const item = outboxItemOf(paymentOutbox(saved, events));
  // The item stays within one write unit (1 KB): its events compressed, its key, its ttl.
  expect((item.events as Uint8Array).length + String(item.pk).length).toBeLessThanOrEqual(900);
  const written = outboxEventsOfItem(item);
  expect(written.map((e) => [e.eventId, e.type, e.occurredAt])).toEqual(events.map((e) => [`payment:${saved.id}:${e.key}`, e.type, saved.updatedAt]));
  expect(written.map((e) => JSON.parse(messageBody(e)).payload)).toEqual(
    events.map((e) => JSON.parse(JSON.stringify({ ...e.payload, callback_url: saved.callbackUrl }))),
  );
}

/** A fact, given the payment it will be applied to (so confirmations name its deposits). */
type FactMaker = (p: PaymentState, now: Date) => PaymentFact;

const factArb = (amountBase: bigint): fc.Arbitrary<FactMaker> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...POOL),
          fc.bigInt({ min: 1n, max: amountBase * 2n }),
          fc.constantFrom<DepositStatus>('pending', 'pending', 'pending', 'wrong_currency', 'uncredited'),
          fc.boolean(),
        )
        .map(([id, base, status, late]): FactMaker => (_p, now) => ({ kind: 'deposit', deposit: deposit(id, base, status, late, now) })),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.array(fc.nat(3), { minLength: 4, maxLength: 4 }),
          fc.constantFrom('0', '1'),
          fc.option(fc.bigInt({ min: 1n, max: amountBase * 2n }), { nil: undefined }),
        )
        .map(([confirmations, tolerancePercent, repriced]): FactMaker => (p) => ({
          kind: 'confirmations',
          byDeposit: Object.fromEntries(p.deposits.map((d, i) => [d.id, confirmations[i % 4] ?? 0])),
          confirmationsNeeded: 2,
          tolerancePercent,
          ...(repriced === undefined ? {} : { repriced: fromBaseUnits(repriced, 6) }),
        })),
    },
    { weight: 1, arbitrary: fc.subarray(POOL, { minLength: 1 }).map((ids): FactMaker => () => ({ kind: 'reorg', depositIds: ids })) },
    { weight: 2, arbitrary: fc.constant<FactMaker>(() => ({ kind: 'sweep_started' })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.nat(99), fc.boolean())
        .map(([n, rate]): FactMaker => () => ({ kind: 'sweep_completed', txHash: `0xs${n}`, usdRate: rate ? '1' : null })),
    },
    { weight: 1, arbitrary: fc.constant<FactMaker>(() => ({ kind: 'sweep_failed' })) },
    { weight: 1, arbitrary: fc.constant<FactMaker>(() => ({ kind: 'expire' })) },
    { weight: 1, arbitrary: fc.constant<FactMaker>(() => ({ kind: 'cancel' })) },
    { weight: 1, arbitrary: fc.option(fc.string({ maxLength: 8 }), { nil: null }).map((orderId): FactMaker => () => ({ kind: 'edit', changes: { orderId } })) },
  );

/** Paid in full and confirmed: half the runs start so, to reach the sweep and the settled states often. */
const paidInFull = (amountBase: bigint): [FactMaker, number][] => [
  [(_p, now) => ({ kind: 'deposit', deposit: deposit('d1', amountBase, 'pending', false, now) }), 1],
  [(p) => ({ kind: 'confirmations', byDeposit: Object.fromEntries(p.deposits.map((d) => [d.id, 2])), confirmationsNeeded: 2, tolerancePercent: '0' }), 1],
];

const runArb = fc
  .record({
    amountCents: fc.integer({ min: 1_000, max: 1_000_000 }),
    feeCents: fc.integer({ min: 0, max: 1_000 }),
    isFixedRate: fc.boolean(),
    paid: fc.boolean(),
  })
  .chain((p) => {
    const amountBase = toBaseUnits(cents(p.amountCents), 6);
    return fc
      .array(fc.tuple(factArb(amountBase), fc.nat(90)), { maxLength: 20 })
      .map((steps) => ({ payment: p, steps: p.paid ? [...paidInFull(amountBase), ...steps] : steps }));
  });

const sampleFact = (kind: FactKind): PaymentFact => {
  switch (kind) {
    case 'deposit':
      return { kind, deposit: deposit('d9', 1_000_000n) };
    case 'confirmations':
      return { kind, byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' };
    case 'reorg':
      return { kind, depositIds: ['d1'] };
    case 'deposit_mined':
      return { kind, depositId: 'd1', blockNumber: 11, blockHash: '0xc' };
    case 'sweep_completed':
      return { kind, txHash: '0xs', usdRate: '1' };
    case 'edit':
      return { kind, changes: { orderId: 'o' } };
    case 'settle_for_refund':
      return { kind, refundHold: '0', usdRate: '1' };
    default:
      return { kind };
  }
};

describe('payment lifecycle (property)', () => {
  it('the allowed (status, fact) pairs are exactly these', () => {
    const base = stored(opened('25', '0.25', true), null);
    for (const status of PAYMENT_STATUSES) {
      for (const kind of FACT_KINDS) {
        // Past its expiry (a partially paid payment is then settled by a refund).
        const deposits = kind === 'cancel' ? [] : [deposit('d1', 25_000_000n, 'confirmed')];
        const p: PaymentState = { ...base, status, deposits, expiryTime: T0.toISOString() };
        const fact = sampleFact(kind);
        const allowed = ALLOWED[status].includes(kind);
        expect([status, kind, guardAllows(p, fact)]).toEqual([status, kind, allowed]);
        if (allowed) {
          expect(() => transition(p, fact, T0)).not.toThrow();
        } else {
          expect(() => transition(p, fact, T0)).toThrow(ConflictError);
        }
      }
      // With a deposit received, nothing cancels.
      expect(() => transition({ ...base, status, deposits: [deposit('d1', 1n)] }, { kind: 'cancel' }, T0)).toThrow(ConflictError);
    }
  });

  it('confirmed and sending saved as one change: each event is written as announced, in the one outbox item of the save', () => {
    const open = opened('25.00', '0.25', true);
    const waiting = stored(open, null);
    const confirming = stored(transition(waiting, { kind: 'deposit', deposit: deposit('d1', 25_000_000n, 'pending', false, T0) }, T0), waiting);
    const now = new Date(T0.getTime() + 60_000);
    const confirmed = transition(confirming, { kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' }, now);
    const sending = transition(confirmed.state, { kind: 'sweep_started' }, now);
    const saved = stored(sending, confirming);
    const events = [...confirmed.events, ...sending.events];
    expect(events.map((e) => [e.type, e.payload.status, e.payload.previous_status])).toEqual([
      ['payment_status_update', 'confirmed', 'confirming'],
      ['payment.processing', 'confirmed', 'confirming'],
      ['payment_status_update', 'sending', 'confirmed'],
      ['payment.processing', 'sending', 'confirmed'],
    ]);
    expectWrittenAsAnnounced(saved, events);
    expect(saved.updatedAt).toBe(now.toISOString());
  });

  it('from any reachable state: allowed facts move it with the invariants, forbidden ones are invalid_state', () => {
    const reached = new Set<PaymentStatus>();
    fc.assert(
      fc.property(runArb, ({ payment, steps }) => {
        const open = opened(cents(payment.amountCents), cents(payment.feeCents), payment.isFixedRate);
        let p = stored(open, null);
        expectWrittenAsAnnounced(p, open.events);
        const statusKeys = new Set(open.events.map((e) => e.key));
        let credits = 0;
        let at = T0.getTime();

        for (const [make, minutes] of steps) {
          at += minutes * 60_000;
          const now = new Date(at);
          const fact = make(p, now);
          const before = p;
          if (!guardAllows(before, fact)) {
            const refuse = () => transition(before, fact, now);
            expect(refuse).toThrow(ConflictError);
            expect(refuse).toThrow(
              expect.objectContaining({ code: 'invalid_state', details: expect.objectContaining({ status: before.status, action: fact.kind }) }),
            );
            continue;
          }
          const change = transition(before, fact, now);
          const after = change.state;
          reached.add(after.status);
          // The domain leaves the version to the repository; what the payment is for never changes.
          expect(after.version).toBe(before.version);
          expect([after.id, after.amountCrypto, after.fee, after.address, after.createdAt]).toEqual([
            before.id,
            before.amountCrypto,
            before.fee,
            before.address,
            before.createdAt,
          ]);
          // A terminal payment stays where it is.
          if (isTerminal(before.status)) expect(after.status).toBe(before.status);
          // A status change announces itself once, from the status it left; status events are keyed once per payment.
          const updates = change.events.filter((e) => e.type === 'payment_status_update');
          expect(updates.map((e) => [e.payload.previous_status, e.payload.status])).toEqual(
            after.status === before.status ? [] : [[before.status, after.status]],
          );
          for (const e of change.events.filter((x) => x.type !== 'deposit_received')) {
            expect(statusKeys.has(e.key)).toBe(false);
            statusKeys.add(e.key);
          }
          // Every event is written as the transition announced it, all in one outbox item of the change
          // (shared/store/outbox.ts): read back, each has its natural id, its payload and the callback URL, and it
          // happened when the saved state was updated.
          const saved = stored(change, before);
          if (change.events.length > 0) {
            expect(saved.updatedAt).toBe(now.toISOString());
            expectWrittenAsAnnounced(saved, change.events);
          }
          // Deposits: recorded once, forgotten only if held.
          for (const effect of change.effects) {
            if (effect.kind === 'record_deposit') expect(before.deposits.map((d) => d.id)).not.toContain(effect.deposit.id);
            if (effect.kind === 'forget_deposits') for (const id of effect.depositIds) expect(before.deposits.map((d) => d.id)).toContain(id);
          }
          // Money is never created: the one credit is what was received and confirmed, split into net and fee.
          const entries = change.effects.filter((e) => e.kind === 'post_entry');
          if (entries.length > 0) {
            expect([before.status, fact.kind]).toEqual(['sending', 'sweep_completed']);
            credits += entries.length;
            for (const e of entries) {
              if (e.kind !== 'post_entry') continue;
              const lines = linesOf(e.entry);
              expect(isZero(sum(lines.map((l) => l.delta)))).toBe(true);
              const credited = sum(e.entry.legs.map((l) => l.amount));
              expect(credited).toBe(received(before, 'confirmed'));
              expect(lte(credited, received(before))).toBe(true);
              const { net, fee } = merchantCredit(before, received(before, 'confirmed'));
              expect([after.merchantReceived, add(net, fee)]).toEqual([net, credited]);
            }
          }
          expect(credits).toBeLessThanOrEqual(1);
          p = stored(change, before);
        }
      }),
      { numRuns: 400 },
    );
    // The runs reach the settled states, not only the first ones.
    expect([...reached].sort()).toEqual(expect.arrayContaining(['cancelled', 'completed', 'confirmed', 'confirming', 'expired', 'sending', 'waiting']));
  });
});
