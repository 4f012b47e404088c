import type { RefundState } from '../../../shared/domain/refunds.js';
import { REFUND_STATUSES, transition } from '../../../shared/domain/refunds.js';
import { isStatusOfType, refundTransaction, statsDelta, STATUSES_BY_TYPE, TRANSACTION_TYPES } from '../../../shared/domain/transactions.js';
import { presentTransaction } from '../../../shared/usecases/transactions/present.js';
import { aRefund } from '../../support/fixtures/refunds.js';

/** A refund's record in the transaction history: type `refund`, out of the balance the payment credited, counted once. */

const later = new Date('2026-03-01T11:00:00Z');

const awaiting: RefundState = aRefund({ reason: 'returned goods', callbackUrl: 'https://shop.example/cb' });

it('is a type of the history whose statuses are the refund statuses', () => {
  expect(TRANSACTION_TYPES).toContain('refund');
  expect(STATUSES_BY_TYPE.refund).toEqual(REFUND_STATUSES);
  expect(isStatusOfType('refund', 'awaiting_address')).toBe(true);
  expect(isStatusOfType('refund', 'waiting')).toBe(false);
});

it('shows a refund awaiting its address: out of main, the amount held, the estimated fee, the payment in custom_id', () => {
  expect(refundTransaction(awaiting)).toEqual({
    id: 'r1',
    type: 'refund',
    status: 'awaiting_address',
    subtype: null,
    direction: 'out',
    currency: 'USDTERC20',
    amount: '20',
    fee: '3',
    net_amount: '20',
    amount_usd: null,
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:00:00.000Z',
    transaction_hash: null,
    order_id: null,
    custom_id: 'p1',
    wallet_id: null,
  });
});

it("belongs to the payment's wallet when the payment credited one", () => {
  expect(refundTransaction({ ...awaiting, account: 'wallet:0b7e2a52-1111-4c55-9e1a-0d6f4c2b7a10' }).wallet_id).toBe('0b7e2a52-1111-4c55-9e1a-0d6f4c2b7a10');
});

it('completed: what was charged, the fee the chain took, the hash; the statistics count its volume and fee as a refund', () => {
  const pending = transition(
    awaiting,
    { kind: 'address_set', address: '0x1111111111111111111111111111111111111111', memo: null, withdrawalId: 'w1' },
    later,
  ).state;
  const processing = transition(pending, { kind: 'dispatched', withdrawalId: 'w1' }, later).state;
  const done = transition(processing, { kind: 'paid', txHash: '0xabc', networkFee: '1', amountSent: '17' }, later).state;
  const record = refundTransaction(done);
  expect(record).toMatchObject({ status: 'completed', amount: '18', fee: '1', net_amount: '18', transaction_hash: '0xabc', updated_at: later.toISOString() });
  expect(statsDelta(refundTransaction(processing), record)).toEqual({
    'n|refund|processing|USDTERC20': '-1',
    'n|refund|completed|USDTERC20': '1',
    'v|refund|USDTERC20': '18',
    'f|refund|USDTERC20': '1',
  });
  // Spelled at the currency's display precision, as a payment's amounts are.
  expect(presentTransaction(record)).toMatchObject({ amount: '18.000000', fee: '1.000000', net_amount: '18.000000' });
});

it('a cancelled refund counts as cancelled, with no volume', () => {
  const cancelled = transition(awaiting, { kind: 'cancel' }, later).state;
  expect(statsDelta(refundTransaction(awaiting), refundTransaction(cancelled))).toEqual({
    'n|refund|awaiting_address|USDTERC20': '-1',
    'n|refund|cancelled|USDTERC20': '1',
  });
});
