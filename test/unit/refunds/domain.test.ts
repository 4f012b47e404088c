import fc from 'fast-check';
import { ConflictError, GatewayError } from '../../../shared/domain/errors.js';
import { parseEventPayload } from '../../../shared/domain/events.js';
import { applyLines, linesOf } from '../../../shared/domain/ledger.js';
import type { Balance } from '../../../shared/domain/ledger.js';
import { add, lte, sub } from '../../../shared/domain/money.js';
import { transition as paymentTransition } from '../../../shared/domain/payments.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import type { RefundDraft, RefundEffect, RefundState } from '../../../shared/domain/refunds.js';
import { openRefund, refundable, requireRefundable, transition } from '../../../shared/domain/refunds.js';
import type { WithdrawalEffect } from '../../../shared/domain/withdrawals.js';
import { openRefundPayout, transition as withdrawalTransition } from '../../../shared/domain/withdrawals.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';

const now = new Date('2026-01-01T00:00:00Z');
const later = (hours: number) => new Date(now.getTime() + hours * 3600_000);

/** A 25 USDT payment (fee 0.25) that received `got` and completed: credited `got - 0.25`. */
function completed(got: string, over: Partial<PaymentState> = {}): PaymentState {
  const flags = lte(got, '25') ? [] : (['overpaid'] as const);
  return aPayment(
    {
      status: 'completed',
      deposits: [aDeposit('d1', got, { status: 'confirmed' })],
      flags: [...flags],
      merchantReceived: sub(got, '0.25'),
      ...over,
    },
    now,
  );
}

const draft = (over: Partial<RefundDraft> = {}): RefundDraft => ({
  id: 'r1',
  tenantId: 't1',
  paymentId: 'p1',
  currency: 'USDTERC20',
  network: 'ETH',
  amount: '10',
  networkFee: '1',
  address: '0x1111111111111111111111111111111111111111',
  memo: null,
  reason: 'customer asked',
  account: 'main',
  callbackUrl: null,
  claimToken: null,
  ...over,
});

/** The balance of main after the entries among `effects` (refused as the store would: never below zero). */
function mainAfter(start: string | Balance, effects: readonly (RefundEffect | WithdrawalEffect)[]): Balance {
  let balance: Balance = typeof start === 'string' ? { amount: start, pending: '0', locked: '0' } : start;
  for (const e of effects) {
    if (e.kind !== 'post_entry') continue;
    balance = applyLines(() => balance, e.entry.currency, linesOf(e.entry)).get('main') ?? balance;
  }
  return balance;
}

describe('refundable', () => {
  it('a completed payment: everything the merchant was credited, never what was received before the fee', () => {
    const r = refundable(completed('25'), '0', now);
    expect(r).toMatchObject({ base: '24.75', received: '25', refunded: '0', refundable: '24.75', suggested: '24.75', why: null });
  });

  it('an overpaid payment suggests its excess, and the rest of the credit stays refundable', () => {
    const r = refundable(completed('30'), '0', now);
    expect(r).toMatchObject({ base: '29.75', refundable: '29.75', suggested: '5' });
    // After 4 refunded, only 1 of the excess is suggested; after 27, what is left (2.75) caps it.
    expect(refundable(completed('30'), '4', now).suggested).toBe('5');
    expect(refundable(completed('30'), '27', now)).toMatchObject({ refundable: '2.75', suggested: '2.75' });
  });

  it('a payment partially paid: not refundable while it may still be paid in full; past its expiry, its first refund settles it', () => {
    const deposits = [aDeposit('d1', '10', { status: 'confirmed' })];
    const open = aPayment({ status: 'partially_paid', flags: ['underpaid'], deposits, expiryTime: new Date(now.getTime() + 60_000).toISOString() }, now);
    const early = refundable(open, '0', now);
    expect(early).toMatchObject({ base: '0', received: '10', refundable: '0', suggested: '0', settles: false });
    expect(early.why).toMatch(/once it has expired/);
    expect(() => requireRefundable('1', early, 'USDTERC20')).toThrow(ConflictError);
    // Past its expiry: its confirmed deposits less the platform fee (0.25), all of it suggested, settled by the refund.
    const expired = { ...open, expiryTime: new Date(now.getTime() - 1).toISOString() };
    expect(refundable(expired, '0', now)).toMatchObject({ base: '9.75', refundable: '9.75', suggested: '9.75', settles: true, why: null });
    // Once settled (failed, credited), it is refunded as any credited payment is, never settled twice.
    const settled = paymentTransition(expired, { kind: 'settle_for_refund', refundHold: '4', usdRate: '1' }, now);
    expect(settled.state).toMatchObject({ status: 'failed', merchantReceived: '9.75', merchantReceivedUsd: '9.75' });
    expect(refundable(settled.state, '4', now)).toMatchObject({ base: '9.75', refundable: '5.75', settles: false });
    // The credit: 5.75 to main, 4 to main's locked part (the refund's hold), the fee to the platform.
    const entry = settled.effects.find((e) => e.kind === 'post_entry');
    expect(entry?.kind === 'post_entry' && mainAfter('0', [entry])).toEqual({ amount: '5.75', pending: '0', locked: '4' });
    expect(() => paymentTransition(expired, { kind: 'settle_for_refund', refundHold: '9.76', usdRate: null }, now)).toThrow(RangeError);
    expect(() => paymentTransition(open, { kind: 'settle_for_refund', refundHold: '1', usdRate: null }, now)).toThrow(ConflictError);
  });

  it('a payment paid too late or never paid was never credited: nothing is refundable, and why', () => {
    const tooLate = aPayment({ status: 'expired', flags: ['paid_late'], deposits: [aDeposit('d1', '25', { status: 'uncredited' })] }, now);
    const r = refundable(tooLate, '0', now);
    expect(r).toMatchObject({ base: '0', received: '0', refundable: '0', settles: false });
    expect(r.why).toMatch(/expired payment was not credited/);
    expect(() => requireRefundable('1', r, 'USDTERC20')).toThrow(ConflictError);
  });

  it('a refund held by its payment credit posts no hold of its own', () => {
    expect(openRefund(draft({ heldInCredit: true }), now).effects).toEqual([]);
    expect(openRefund(draft(), now).effects).toHaveLength(1);
  });

  it('a payment paid late within the watch window and completed is refundable in full', () => {
    const late = completed('25', { flags: ['paid_late'], deposits: [aDeposit('d1', '25', { status: 'confirmed', late: true })] });
    expect(refundable(late, '0', now).refundable).toBe('24.75');
  });

  it('refuses more than is left, with what is left in the error', () => {
    const r = refundable(completed('25'), '20', now);
    expect(r.refundable).toBe('4.75');
    expect(() => requireRefundable('4.75', r, 'USDTERC20')).not.toThrow();
    const error = (() => {
      try {
        requireRefundable('4.76', r, 'USDTERC20');
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    expect((error as GatewayError).details).toMatchObject({ refundable: '4.75', currency: 'USDTERC20' });
  });

  it('the refunds of a payment never add up to more than its credit (property)', () => {
    expect(() =>
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: 3000 }), { maxLength: 30 }), (cents) => {
          const p = completed('30');
          let refunded = '0';
          for (const c of cents) {
            const amount = (c / 100).toFixed(2);
            try {
              requireRefundable(amount, refundable(p, refunded, now), p.currency);
              refunded = add(refunded, amount);
            } catch {
              // refused
            }
          }
          return lte(refunded, '29.75');
        }),
        { numRuns: 200 },
      ),
    ).not.toThrow();
  });

  it('follows the payment: nothing while it is open, its credit once the sweep completes it', () => {
    const p = aPayment({ status: 'sending', deposits: [aDeposit('d1', '25', { status: 'confirmed' })] }, now);
    expect(refundable(p, '0', now).refundable).toBe('0');
    const done = paymentTransition(p, { kind: 'sweep_completed', txHash: '0xs', usdRate: null }, now).state;
    expect(refundable(done, '0', now).refundable).toBe('24.75');
  });
});

describe('openRefund', () => {
  it('with an address: pending, the amount held, announced by refund.created and refund_status_update', () => {
    const c = openRefund(draft(), now);
    expect(c.state).toMatchObject({ status: 'pending', claimToken: null, claimExpiresAt: null, amountSent: null });
    expect(c.events.map((e) => e.type)).toEqual(['refund_status_update', 'refund.created']);
    for (const e of c.events) expect(() => parseEventPayload(e.type, e.payload)).not.toThrow();
    expect(mainAfter('100', c.effects)).toEqual({ amount: '90', pending: '0', locked: '10' });
    expect(c.effects[0]).toMatchObject({ kind: 'post_entry', entryId: 'refund:r1:hold', entry: { type: 'refund_hold' } });
  });

  it('without an address: awaiting_address with a claim token valid for 72 hours', () => {
    const c = openRefund(draft({ address: null, claimToken: 'tok' }), now);
    expect(c.state).toMatchObject({ status: 'awaiting_address', claimToken: 'tok', claimExpiresAt: later(72).toISOString() });
    expect(() => openRefund(draft({ address: null, claimToken: null }), now)).toThrow(TypeError);
    expect(() => openRefund(draft({ amount: '0' }), now)).toThrow(GatewayError);
  });
});

describe('transition', () => {
  const pending = (): RefundState => ({ ...openRefund(draft(), now).state, version: 1 });
  const awaiting = (): RefundState => ({ ...openRefund(draft({ address: null, claimToken: 'tok' }), now).state, version: 1 });

  it('awaiting_address -> pending when the address is entered; the claim token is spent', () => {
    const c = transition(awaiting(), { kind: 'address_set', address: '0xabc', memo: null }, later(1));
    expect(c.state).toMatchObject({ status: 'pending', address: '0xabc', claimToken: null });
    expect(c.events.map((e) => e.type)).toEqual(['refund_status_update']);
    expect(c.effects).toEqual([]);
    expect(() => transition(c.state, { kind: 'address_set', address: '0xdef', memo: null }, later(1))).toThrow(ConflictError);
    expect(() => transition(awaiting(), { kind: 'address_set', address: '0xabc', memo: null }, later(73))).toThrow(/expired/);
  });

  /** The refund's withdrawal (openRefundPayout) for a refund that is pending with `withdrawalId` w1. */
  const payoutOf = (r: RefundState, fee = '1') =>
    openRefundPayout(r, { id: 'w1', currency: 'USDTERC20', network: 'ETH', token: 'USDT', address: r.address ?? '', networkFee: fee }, now);
  const paying = (): RefundState => ({ ...openRefund(draft({ withdrawalId: 'w1' }), now).state, version: 1 });

  it('the payout withdrawal takes the hold over: no hold of its own, it sends amount - network_fee and deducts the amount', () => {
    const w = payoutOf(paying());
    expect(w.state).toMatchObject({ refundId: 'r1', amount: '9', networkFee: '1', platformFee: '0', totalFee: '1', totalDeducted: '10', accountId: null });
    expect(w.effects).toEqual([]);
    expect(w.events.map((e) => e.type)).toContain('withdrawal.created');
    expect(payoutOf({ ...paying(), account: 'wallet:wa' }).state.accountId).toBe('wa');
    // The payment's callback URL hears of the refund, not of its withdrawal.
    expect(payoutOf({ ...paying(), callbackUrl: 'https://shop.example/cb' }).state.callbackUrl).toBeNull();
    expect(() => payoutOf(paying(), '10')).toThrow(RangeError);
  });

  it('pending -> processing -> completed by its withdrawal: the withdrawal spends exactly the hold, the refund posts nothing', () => {
    const r = paying();
    const w0 = payoutOf(r);
    const p = transition(r, { kind: 'dispatched', withdrawalId: 'w1' }, now);
    expect(p.state).toMatchObject({ status: 'processing', withdrawalId: 'w1' });
    const w1 = withdrawalTransition({ ...w0.state, version: 1 }, { kind: 'dispatched' }, now);
    const w2 = withdrawalTransition(w1.state, { kind: 'chain_confirmed', txHash: '0xtx' }, now);
    const c = transition(p.state, { kind: 'paid', txHash: '0xtx', networkFee: w2.state.networkFee, amountSent: w2.state.amount }, now);
    expect(c.state).toMatchObject({ status: 'completed', transactionHash: '0xtx', networkFee: '1', amountSent: '9', amount: '10' });
    expect(c.events.map((e) => e.type)).toEqual(['refund_status_update', 'refund.completed']);
    expect(c.effects).toEqual([]);
    // The merchant is charged exactly the refund amount: 100 - 10, nothing left held.
    const all = [...openRefund(draft({ withdrawalId: 'w1' }), now).effects, ...w0.effects, ...w1.effects, ...w2.effects, ...p.effects, ...c.effects];
    expect(mainAfter('100', all)).toEqual({ amount: '90', pending: '0', locked: '0' });
    expect(() => transition(p.state, { kind: 'paid', txHash: '0xtx', networkFee: '2', amountSent: '9' }, now)).toThrow(RangeError);
  });

  it('a chain that took less than the fee held: the refund is what was charged, the rest refundable again', () => {
    const r = transition(paying(), { kind: 'dispatched', withdrawalId: 'w1' }, now).state;
    const w1 = withdrawalTransition(
      { ...payoutOf(r).state, status: 'processing', version: 2 },
      { kind: 'chain_confirmed', txHash: '0xtx', networkFee: '0.4' },
      now,
    );
    const c = transition(r, { kind: 'paid', txHash: '0xtx', networkFee: w1.state.networkFee, amountSent: w1.state.amount }, now);
    expect(c.state).toMatchObject({ amount: '9.4', networkFee: '0.4', amountSent: '9' });
    expect(c.effects).toEqual([{ kind: 'unrefund', amount: '0.6' }]);
    expect(mainAfter({ amount: '90', pending: '0', locked: '10' }, w1.effects)).toEqual({ amount: '90.6', pending: '0', locked: '0' });
  });

  it('failure or cancel of a refund with a withdrawal: the withdrawal releases the hold once, the refund only gives the amount back', () => {
    const processing = transition(paying(), { kind: 'dispatched', withdrawalId: 'w1' }, now).state;
    const w = { ...payoutOf(paying()).state, version: 1 };
    const pairs: [ReturnType<typeof transition>, ReturnType<typeof withdrawalTransition>, string][] = [
      [
        transition(processing, { kind: 'failed', reason: 'reverted' }, now),
        withdrawalTransition({ ...w, status: 'processing' }, { kind: 'chain_failed', reason: 'reverted' }, now),
        'failed',
      ],
      [transition(paying(), { kind: 'cancel' }, now), withdrawalTransition(w, { kind: 'cancel' }, now), 'cancelled'],
    ];
    for (const [c, wc, status] of pairs) {
      expect(c.state.status).toBe(status);
      expect(c.events.map((e) => e.type)).toEqual(['refund_status_update', 'refund.failed']);
      expect(c.effects).toEqual([{ kind: 'unrefund', amount: '10' }]);
      expect(mainAfter({ amount: '90', pending: '0', locked: '10' }, [...c.effects, ...wc.effects])).toEqual({ amount: '100', pending: '0', locked: '0' });
    }
  });

  it('cancel and expiry of a refund awaiting its address release the hold and give the amount back; announced as refund.failed', () => {
    const cases: [RefundState, Parameters<typeof transition>[1], Date, string][] = [
      [awaiting(), { kind: 'cancel' }, now, 'cancelled'],
      [awaiting(), { kind: 'expire' }, later(72), 'expired'],
    ];
    for (const [r, fact, at, status] of cases) {
      const c = transition(r, fact, at);
      expect(c.state.status).toBe(status);
      expect(c.events.map((e) => e.type)).toEqual(['refund_status_update', 'refund.failed']);
      expect(c.effects).toContainEqual({ kind: 'unrefund', amount: '10' });
      expect(mainAfter({ amount: '90', pending: '0', locked: '10' }, c.effects)).toEqual({ amount: '100', pending: '0', locked: '0' });
    }
  });

  it('refuses what its state does not allow', () => {
    const processing = transition(pending(), { kind: 'dispatched', withdrawalId: 'w1' }, now).state;
    expect(() => transition(processing, { kind: 'cancel' }, now)).toThrow(/cannot be cancelled/);
    expect(() => transition(awaiting(), { kind: 'expire' }, later(71))).toThrow(ConflictError);
    expect(() => transition(pending(), { kind: 'expire' }, later(100))).toThrow(ConflictError);
    expect(() => transition(awaiting(), { kind: 'dispatched', withdrawalId: 'w1' }, now)).toThrow(ConflictError);
    const done = transition(processing, { kind: 'paid', txHash: '0x', networkFee: '1', amountSent: '9' }, now).state;
    for (const fact of [{ kind: 'cancel' }, { kind: 'failed', reason: 'x' }, { kind: 'paid', txHash: '0x', networkFee: '1', amountSent: '9' }] as const) {
      expect(() => transition(done, fact, now)).toThrow(ConflictError);
    }
  });
});
