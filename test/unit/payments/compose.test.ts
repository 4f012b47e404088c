import { ConflictError } from '../../../shared/domain/errors.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { andThen, transition } from '../../../shared/domain/payments.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';

const now = new Date('2026-01-01T00:00:00Z');

/** A payment confirming one deposit of 25 (version 2: created, then the deposit). */
function confirming(over: Partial<PaymentState> = {}): PaymentState {
  const t = transition(aPayment(over, now), { kind: 'deposit', deposit: aDeposit('d1', '25', {}, now) }, now);
  return { ...t.state, version: 2 };
}

const confirmations = (p: PaymentState) => transition(p, { kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' }, now);

describe('andThen: two transitions as one change', () => {
  it('confirming -> confirmed -> sending: the state of the second, the events of both in order, every key its own', () => {
    const p = confirming();
    const first = confirmations(p);
    const second = transition(first.state, { kind: 'sweep_started', reference: 'sweep:b1' }, now);
    const both = andThen(first, { kind: 'sweep_started', reference: 'sweep:b1' }, now);

    expect(both.state).toEqual(second.state);
    expect(both.state).toMatchObject({ status: 'sending', sweepReference: 'sweep:b1', version: 2 });
    expect(both.state.deposits).toEqual(first.state.deposits);
    expect(both.events.map((e) => [e.type, e.payload.status, e.payload.previous_status])).toEqual([
      ['payment_status_update', 'confirmed', 'confirming'],
      ['payment.processing', 'confirmed', 'confirming'],
      ['payment_status_update', 'sending', 'confirmed'],
      ['payment.processing', 'sending', 'confirmed'],
    ]);
    // Both are keyed by the one version saved (3); the family event both statuses share keeps an id of its own.
    expect(both.events.map((e) => e.key)).toEqual(['status:3:confirmed', 'payment.processing:3', 'status:3:sending', 'payment.processing:3:sweep_started']);
    expect(both.effects).toEqual([]);
  });

  it('keeps the effects of both, in order', () => {
    const p = confirming();
    const sending = transition(confirmations(p).state, { kind: 'sweep_started' }, now);
    const credited = andThen(sending, { kind: 'sweep_completed', txHash: '0xs', usdRate: '1' }, now);
    expect(credited.state).toMatchObject({ status: 'completed', sweepTxHash: '0xs', merchantReceived: '24.75' });
    expect(credited.effects.map((e) => e.kind)).toEqual(['post_entry']);
    expect(credited.events.map((e) => e.key)).toEqual(['status:3:sending', 'payment.processing:3', 'merged:d1', 'status:3:completed', 'payment.completed:3']);
  });

  it('refuses as the second transition does: a payment not confirmed is not swept', () => {
    const p = confirming();
    const stillConfirming = transition(p, { kind: 'confirmations', byDeposit: { d1: 1 }, confirmationsNeeded: 2, tolerancePercent: '0' }, now);
    expect(stillConfirming.state.status).toBe('confirming');
    expect(() => andThen(stillConfirming, { kind: 'sweep_started', reference: 'sweep:b1' }, now)).toThrow(ConflictError);
  });

  it('a failed sweep returns the payment to confirmed keeping its reference; swept again in the same change', () => {
    const p = { ...transition(confirmations(confirming()).state, { kind: 'sweep_started', reference: 'sweep:b1' }, now).state, version: 3 };
    const back = transition(p, { kind: 'sweep_failed' }, now);
    expect(back.state).toMatchObject({ status: 'confirmed', sweepReference: 'sweep:b1' });
    const again = andThen(back, { kind: 'sweep_started', reference: 'sweep:b2' }, now);
    expect(again.state).toMatchObject({ status: 'sending', sweepReference: 'sweep:b2' });
    expect(again.events.map((e) => [e.key, e.payload.status])).toEqual([
      ['status:4:confirmed', 'confirmed'],
      ['payment.processing:4', 'confirmed'],
      ['status:4:sending', 'sending'],
      ['payment.processing:4:sweep_started', 'sending'],
    ]);
  });

  it('a sweep without a reference leaves the state without one', () => {
    const sending = transition(confirmations(confirming()).state, { kind: 'sweep_started' }, now);
    expect(sending.state.status).toBe('sending');
    expect('sweepReference' in sending.state).toBe(false);
  });
});
