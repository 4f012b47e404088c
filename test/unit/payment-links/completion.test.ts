import { ConflictError } from '../../../shared/domain/errors.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { transition } from '../../../shared/domain/payments.js';
import type { WriteItem } from '../../../shared/usecases/ports.js';
import type { LinkCompletion } from '../../../shared/usecases/payments/ports.js';
import { completePayment } from '../../../shared/usecases/payments/settle.js';
import { VirtualClock } from '../../support/clock.js';
import { fixedRatesDeps, InMemoryPayments } from '../../support/fakes/payments.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';

/**
 * The completion of a payment a link opened (shared/usecases/payments/settle.ts): the link's write commits with the
 * payment; refused while the payment is as read (the link's count moved), the link is read again and the completion
 * written with the new reading, over the limit this time; refused because the payment itself moved, it stands.
 */
const now = new Date('2026-01-01T00:00:00Z');
const LINK = 'c5d2e4a0-1111-4111-8111-000000000001';

function sending(): PaymentState {
  const paid = transition(aPayment({ paymentLinkId: LINK }, now), { kind: 'deposit', deposit: aDeposit('d1', '25', {}, now) }, now).state;
  const confirmed = transition(paid, { kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' }, now).state;
  return transition(confirmed, { kind: 'sweep_started' }, now).state;
}

/** A link's write, named so the test can tell which reading a save carried. */
const item = (name: string) => ({ name }) as unknown as WriteItem;

function setup(readings: readonly LinkCompletion[]) {
  const payments = new InMemoryPayments();
  const p = sending();
  payments.states.set(`${p.tenantId}|${p.id}`, p);
  const carried: unknown[][] = [];
  let reads = 0;
  const linkCompletion = async (payment: PaymentState) => {
    expect(payment.paymentLinkId).toBe(LINK);
    return readings[Math.min(reads++, readings.length - 1)] as LinkCompletion;
  };
  return { payments, p, carried, linkCompletion, reads: () => reads };
}

it('writes the link reading with the payment, and reads the link again when only its count moved', async () => {
  const s = setup([
    { overLimit: false, items: [item('counted')] },
    { overLimit: true, items: [item('over')] },
  ]);
  const save = s.payments.save.bind(s.payments);
  s.payments.save = async (previous, change, at, also = []) => {
    s.carried.push(also.map((i) => (i as unknown as { name: string }).name));
    // The first reading's condition fails: another payment of the link took the last place.
    if (s.carried.length === 1) throw new ConflictError('The payment changed meanwhile; retry.');
    return save(previous, change, at);
  };
  const done = await completePayment(s.p, '0xs', { payments: s.payments, rates: fixedRatesDeps(new VirtualClock(now)), linkCompletion: s.linkCompletion }, now);
  expect([done.status, done.flags, s.carried, s.reads()]).toEqual(['completed', ['payment_link_over_limit'], [['counted'], ['over']], 2]);
});

it('a completion refused because the payment itself moved is not retried', async () => {
  const s = setup([{ overLimit: false, items: [item('counted')] }]);
  s.payments.save = async (previous) => {
    s.carried.push(['tried']);
    // Another pass saved the payment meanwhile.
    s.payments.states.set(`${previous.tenantId}|${previous.id}`, { ...previous, version: previous.version + 1 });
    throw new ConflictError('The payment changed meanwhile; retry.');
  };
  await expect(
    completePayment(s.p, '0xs', { payments: s.payments, rates: fixedRatesDeps(new VirtualClock(now)), linkCompletion: s.linkCompletion }, now),
  ).rejects.toThrow(ConflictError);
  expect([s.carried.length, s.reads()]).toEqual([1, 1]);
});

it('a payment of no link completes with no link write', async () => {
  const payments = new InMemoryPayments();
  const p = { ...sending(), paymentLinkId: undefined };
  payments.states.set(`${p.tenantId}|${p.id}`, p);
  const done = await completePayment(p, '0xs', { payments, rates: fixedRatesDeps(new VirtualClock(now)), linkCompletion: async () => null }, now);
  expect([done.status, done.flags]).toEqual(['completed', []]);
});
