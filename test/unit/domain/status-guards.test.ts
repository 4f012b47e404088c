import { isActiveAccount, isConfirmingDeposit, isCreditedDeposit } from '../../../shared/domain/custody.js';
import { EXPORT_STATUSES, isCompleted } from '../../../shared/domain/exports.js';
import { isStatusOfType, STATUSES_BY_TYPE, TRANSACTION_TYPES } from '../../../shared/domain/transactions.js';
import { awaitsSettlement, TRANSFER_STATUSES } from '../../../shared/domain/wallets.js';
import { awaitsFirstAttempt, DELIVERY_STATUSES, isActiveSubscription, isPendingDelivery, SUBSCRIPTION_STATUSES } from '../../../shared/domain/webhooks.js';
import { canSettle, hasFailed, isOpen, isPending, isProcessing, WITHDRAWAL_STATUSES } from '../../../shared/domain/withdrawals.js';
import { isFulfilled, isRejected } from '../../../shared/usecases/settled.js';

/** Each guard names the statuses it admits: the use cases ask these, never compare status strings. */
const admitted = <S extends string>(statuses: readonly S[], guard: (x: { status: S }) => boolean): S[] => statuses.filter((status) => guard({ status }));

describe('status guards', () => {
  it('withdrawals', () => {
    expect(admitted(WITHDRAWAL_STATUSES, isPending)).toEqual(['pending']);
    expect(admitted(WITHDRAWAL_STATUSES, isProcessing)).toEqual(['processing']);
    expect(admitted(WITHDRAWAL_STATUSES, hasFailed)).toEqual(['failed']);
    expect(admitted(WITHDRAWAL_STATUSES, isOpen)).toEqual(['pending', 'processing']);
    expect(admitted(WITHDRAWAL_STATUSES, isOpen)).toEqual(admitted(WITHDRAWAL_STATUSES, canSettle));
  });

  it('webhooks', () => {
    expect(admitted(SUBSCRIPTION_STATUSES, isActiveSubscription)).toEqual(['active']);
    expect(admitted(DELIVERY_STATUSES, isPendingDelivery)).toEqual(['pending']);
    expect(awaitsFirstAttempt({ status: 'pending', attempts: 0 })).toBe(true);
    expect(awaitsFirstAttempt({ status: 'pending', attempts: 1 })).toBe(false);
    expect(awaitsFirstAttempt({ status: 'failed', attempts: 0 })).toBe(false);
  });

  it('exports, wallet transfers and custody', () => {
    expect(admitted(EXPORT_STATUSES, isCompleted)).toEqual(['completed']);
    expect(admitted(TRANSFER_STATUSES, awaitsSettlement)).toEqual(['accepted']);
    expect(isActiveAccount({ status: 'active' })).toBe(true);
    expect(isActiveAccount({ status: 'inactive' })).toBe(false);
    expect(isConfirmingDeposit({ status: 'confirming' })).toBe(true);
    expect(isConfirmingDeposit({ status: 'credited' })).toBe(false);
    expect(isCreditedDeposit({ status: 'credited' })).toBe(true);
    expect(isCreditedDeposit({ status: 'sweeping' })).toBe(false);
  });

  it('the history: a status belongs to the types that have it', () => {
    expect(isStatusOfType('withdrawal', 'processing')).toBe(true);
    expect(isStatusOfType('transfer', 'processing')).toBe(false);
    expect(isStatusOfType('adjustment', 'completed')).toBe(true);
    expect(isStatusOfType('adjustment', 'pending')).toBe(false);
    for (const type of TRANSACTION_TYPES) for (const status of STATUSES_BY_TYPE[type]) expect(isStatusOfType(type, status)).toBe(true);
  });

  it('settled promises', async () => {
    const results = await Promise.allSettled([Promise.resolve(1), Promise.reject(new Error('no')), Promise.resolve(3)]);
    expect(results.filter(isFulfilled).map((r) => r.value)).toEqual([1, 3]);
    expect(results.find(isRejected)?.reason).toEqual(new Error('no'));
  });
});
