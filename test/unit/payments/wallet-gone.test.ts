import { MAIN, walletAccount } from '../../../shared/domain/ledger.js';
import type { PaymentChange, PaymentState } from '../../../shared/domain/payments.js';
import { transition } from '../../../shared/domain/payments.js';
import { WalletGoneError } from '../../../shared/domain/wallets.js';
import { completePayment } from '../../../shared/usecases/payments/settle.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';
import { fixedRatesDeps, InMemoryPayments } from '../../support/fakes/payments.js';
import { VirtualClock } from '../../support/clock.js';

/**
 * A payment names a wallet that is deleted before the payment's credit: the ledger refuses an entry on a deleted
 * wallet (WalletGoneError), and the credit goes to the merchant's main balance instead, noted in the entry.
 */
const now = new Date('2026-01-01T00:00:00Z');
const WALLET = '0b7d7c55-3f0f-4f43-9c55-5a6f0f6a0a01';

function sending(): PaymentState {
  const paid = transition(aPayment({ walletId: WALLET }, now), { kind: 'deposit', deposit: aDeposit('d1', '25', {}, now) }, now).state;
  const confirmed = transition(paid, { kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' }, now).state;
  return transition(confirmed, { kind: 'sweep_started' }, now).state;
}

const creditOf = (change: PaymentChange) => change.effects.find((e) => e.kind === 'post_entry');

it('credits the wallet while it exists, and main with the wallet noted once it is gone', () => {
  const toWallet = creditOf(transition(sending(), { kind: 'sweep_completed', txHash: '0xs', usdRate: '1' }, now));
  expect(toWallet?.kind === 'post_entry' && toWallet.entry.legs.map((l) => [l.to.account, l.amount])).toEqual([
    [walletAccount(WALLET), '24.75'],
    ['platform:fees', '0.25'],
  ]);
  const toMain = creditOf(transition(sending(), { kind: 'sweep_completed', txHash: '0xs', usdRate: '1', walletGone: true }, now));
  expect(toMain?.kind === 'post_entry' && [toMain.entry.legs.map((l) => [l.to.account, l.amount]), toMain.entry.metadata]).toEqual([
    [
      [MAIN, '24.75'],
      ['platform:fees', '0.25'],
    ],
    { sweep_tx: '0xs', deposit_tx: expect.any(String), deleted_wallet_id: WALLET },
  ]);
});

it('completes the payment crediting main when the ledger refuses its deleted wallet', async () => {
  const payments = new InMemoryPayments();
  const p = sending();
  payments.states.set(`${p.tenantId}|${p.id}`, p);
  const credited: string[] = [];
  const save = payments.save.bind(payments);
  // The ledger's answer for an entry on a deleted wallet.
  payments.save = async (previous, change, at) => {
    const credit = creditOf(change);
    const account = credit?.kind === 'post_entry' ? credit.entry.legs[0]?.to.account : undefined;
    credited.push(String(account));
    if (account === walletAccount(WALLET)) throw new WalletGoneError(WALLET);
    return save(previous, change, at);
  };
  const done = await completePayment(p, '0xs', { payments, rates: fixedRatesDeps(new VirtualClock(now)) }, now);
  expect([done.status, done.walletId, credited]).toEqual(['completed', WALLET, [walletAccount(WALLET), MAIN]]);
});
