import fc from 'fast-check';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { gte, mul } from '../../../shared/domain/money.js';
import type { Deposit, PaymentState } from '../../../shared/domain/payments.js';
import { ConflictError } from '../../../shared/domain/errors.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';
import { isCancellable, lateness, transition } from '../../../shared/domain/payments.js';
import { quote } from '../../../shared/domain/payment-quote.js';
import { usdAmountSortKey as amountSortKey } from '../../../shared/store/keys.js';

const rates = { USDTERC20: '1', ETH: '3000', EUR: '1.1', GBP: '1.25', DAIERC20: '1' };
const now = new Date('2026-01-01T00:00:00Z');

const payment = (over: Partial<PaymentState> = {}): PaymentState => aPayment(over, now);
const deposit = (id: string, amount: string, over: Partial<Deposit> = {}): Deposit => aDeposit(id, amount, over, now);

const confirm = (p: PaymentState, ids: string[]) =>
  transition(p, { kind: 'confirmations', byDeposit: Object.fromEntries(ids.map((i) => [i, 2])), confirmationsNeeded: 2, tolerancePercent: '0' }, now);

describe('quote', () => {
  it('is exact at the display precision and rounds up; the customer pays the fee when told', () => {
    const q = quote({ price: '100', priceCurrency: 'EUR', currency: CURRENCIES.ETH, rates, feePercent: '1', isFeePaidByUser: true });
    expect(q).toMatchObject({ priceCrypto: '0.03666667', fee: '0.00036667', amountCrypto: '0.03703334', amountUsd: '110.00' });
    const m = quote({ price: '20', priceCurrency: 'USD', currency: CURRENCIES.USDTERC20, rates, feePercent: '1', isFeePaidByUser: false });
    expect(m).toMatchObject({ amountCrypto: '20', fee: '0.2', merchantReceives: '19.8', amountBase: 20_000_000n });
  });

  it('never asks less than the price (property)', () => {
    expect(() =>
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.constantFrom('USD', 'EUR', 'GBP'), (cents, fiat) => {
          const price = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
          const q = quote({ price, priceCurrency: fiat, currency: CURRENCIES.ETH, rates, feePercent: '1', isFeePaidByUser: false });
          const fiatUsd = fiat === 'USD' ? '1' : fiat === 'EUR' ? rates.EUR : rates.GBP;
          return gte(mul(q.amountCrypto, rates.ETH), mul(price, fiatUsd));
        }),
        { numRuns: 200 },
      ),
    ).not.toThrow();
  });
});

describe('transition', () => {
  it('deposit -> confirming with events; confirmations -> confirmed; sweep -> sending -> completed (settle)', () => {
    const a = transition(payment(), { kind: 'deposit', deposit: deposit('d1', '25') }, now);
    expect(a.state.status).toBe('confirming');
    expect(a.events.map((e) => e.type)).toEqual(['deposit_received', 'payment_status_update', 'payment.processing']);
    const b = confirm(a.state, ['d1']);
    expect(b.state.status).toBe('confirmed');
    const c = transition(b.state, { kind: 'sweep_started' }, now);
    expect(c.state.status).toBe('sending');
    const d = transition(c.state, { kind: 'sweep_completed', txHash: '0xs', usdRate: '1' }, now);
    expect([d.state.status, d.effects.some((e) => e.kind === 'post_entry'), d.state.merchantReceived, d.state.merchantReceivedUsd]).toEqual([
      'completed',
      true,
      '24.75',
      '24.75',
    ]);
    expect(d.events.map((e) => e.type)).toEqual(['deposit_merged', 'payment_status_update', 'payment.completed']);
  });

  it('underpayment within the tolerance confirms; below it is partially_paid', () => {
    const a = transition(payment(), { kind: 'deposit', deposit: deposit('d1', '24.9') }, now).state;
    expect(confirm(a, ['d1']).state.status).toBe('partially_paid');
    const tolerant = transition(a, { kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0.5' }, now);
    expect(tolerant.state.status).toBe('confirmed');
  });

  it('a re-priced (not fixed rate) payment settles at the detection rate', () => {
    const a = transition(payment({ isFixedRate: false }), { kind: 'deposit', deposit: deposit('d1', '24') }, now).state;
    const t = transition(a, { kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0', repriced: '24' }, now);
    expect(t.state.status).toBe('confirmed');
    const fixed = transition(payment(), { kind: 'deposit', deposit: deposit('d1', '24') }, now).state;
    expect(
      transition(fixed, { kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0', repriced: '24' }, now).state.status,
    ).toBe('partially_paid');
  });

  it('a wrong-currency deposit is recorded and flagged but does not move the payment', () => {
    const t = transition(payment(), { kind: 'deposit', deposit: deposit('d1', '25', { currency: 'USDCERC20', status: 'wrong_currency' }) }, now);
    expect([t.state.status, t.state.flags]).toEqual(['waiting', ['wrong_token']]);
  });

  it('a reorg drops the deposit: back to waiting', () => {
    const a = transition(payment(), { kind: 'deposit', deposit: deposit('d1', '25') }, now).state;
    const t = transition(a, { kind: 'reorg', depositIds: ['d1'] }, now);
    expect([t.state.status, t.state.deposits, t.state.transactionHash]).toEqual(['waiting', [], null]);
  });

  it('guards: cancel only while waiting with no deposit; expire only while waiting', () => {
    expect(isCancellable(payment())).toBe(true);
    const a = transition(payment(), { kind: 'deposit', deposit: deposit('d1', '25') }, now).state;
    expect(() => transition(a, { kind: 'cancel' }, now)).toThrow(ConflictError);
    expect(() => transition(a, { kind: 'expire' }, now)).toThrow(ConflictError);
    expect(transition(payment(), { kind: 'expire' }, now).events.map((e) => e.type)).toEqual(['payment_status_update', 'payment.expired']);
    expect(transition(payment(), { kind: 'cancel' }, now).state.status).toBe('cancelled');
  });

  it('the same deposit twice changes nothing', () => {
    const a = transition(payment(), { kind: 'deposit', deposit: deposit('d1', '25') }, now).state;
    const again = transition(a, { kind: 'deposit', deposit: deposit('d1', '25') }, now);
    expect([again.state, again.events]).toEqual([a, []]);
  });
});

describe('helpers', () => {
  it('lateness: on time, late within the window, too late after it', () => {
    const p = payment();
    expect(lateness(p, new Date('2026-01-01T00:30:00Z'))).toBe('on_time');
    expect(lateness(p, new Date('2026-01-01T05:00:00Z'))).toBe('late');
    expect(lateness(p, new Date('2026-01-03T05:00:00Z'))).toBe('too_late');
  });

  it('amount sort keys order like the amounts', () => {
    const amounts = ['0.5', '10', '9.99', '100', '1000000'];
    expect([...amounts].map(amountSortKey).sort()).toEqual(['0.5', '9.99', '10', '100', '1000000'].map(amountSortKey));
  });
});
