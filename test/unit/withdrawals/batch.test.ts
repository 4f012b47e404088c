import { Interface, ZeroAddress, getAddress } from 'ethers';
import { BATCH_PAYOUT_ABI } from '../../../shared/chain/evm/abi.js';
import { batchOutcomeOf, batchPayoutData, decodeBatchPayoutData } from '../../../shared/chain/evm/batch-payout.js';
import { ConflictError } from '../../../shared/domain/errors.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { leaveBatch, openWithdrawal, transferReferenceOf, transition } from '../../../shared/domain/withdrawals.js';

/** Batch payouts' pure parts: an item's dispatch and its leaving the batch, the call data, the outcome bitmap. */
const T0 = new Date('2026-01-01T00:00:00.000Z');
const TOKEN = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const CONTRACT = '0x1111111111111111111111111111111111111111';

const pending = (): WithdrawalState =>
  openWithdrawal(
    {
      id: 'w-1',
      tenantId: 't1',
      currency: 'USDTERC20',
      network: 'ETH',
      token: 'USDT',
      amount: '10',
      networkFee: '3',
      platformFee: '0.1',
      totalFee: '3.1',
      totalDeducted: '13.1',
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      customId: null,
      callbackUrl: null,
      accountId: null,
      priceAmount: null,
      priceCurrency: null,
    },
    T0,
  ).state;

describe('a withdrawal in a batch payout', () => {
  it('is dispatched with the batch recorded and no transfer of its own', () => {
    const change = transition(pending(), { kind: 'dispatched', batch: 'withdrawal-batch:b1' }, T0);
    expect(change.state).toMatchObject({ status: 'processing', batch: { reference: 'withdrawal-batch:b1', single: false } });
    expect(change.effects).toEqual([]);
    expect(change.events.map((e) => e.key)).toContain('status:processing');
    expect(transferReferenceOf(change.state)).toBe('withdrawal-batch:b1');
  });

  it('leaves the batch for a transfer of its own: still processing, no event, once', () => {
    const item = transition(pending(), { kind: 'dispatched', batch: 'withdrawal-batch:b1' }, T0).state;
    const left = leaveBatch(item, T0);
    expect(left.state).toMatchObject({ status: 'processing', batch: { reference: 'withdrawal-batch:b1', single: true } });
    expect(left.events).toEqual([]);
    expect(left.effects).toEqual([{ kind: 'request_transfer' }]);
    expect(transferReferenceOf(left.state)).toBe('w-1');
    expect(() => leaveBatch(left.state, T0)).toThrow(ConflictError);
    expect(() => leaveBatch(pending(), T0)).toThrow(ConflictError);
    // Sent alone from the start: no batch to leave.
    expect(() => leaveBatch(transition(pending(), { kind: 'dispatched' }, T0).state, T0)).toThrow(ConflictError);
  });
});

describe('batch payout call data and outcome', () => {
  const iface = new Interface(BATCH_PAYOUT_ABI);
  const items = [
    { to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', units: 10n },
    { to: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', units: 2n ** 200n },
  ];

  it('round-trips the items and refuses an empty or oversized batch', () => {
    const data = batchPayoutData(TOKEN, items);
    expect(data.slice(0, 10)).toBe(iface.getFunction('payout')?.selector);
    expect(decodeBatchPayoutData(data)).toEqual({ token: getAddress(TOKEN), items });
    expect(() => batchPayoutData(TOKEN, [])).toThrow(RangeError);
    expect(() =>
      batchPayoutData(
        TOKEN,
        Array.from({ length: 257 }, () => items[0] as (typeof items)[0]),
      ),
    ).toThrow(RangeError);
  });

  it("reads the unpaid items from the contract's Payouts bitmap, and only from that contract", () => {
    const log = iface.encodeEventLog('Payouts', [TOKEN, 5n, (1n << 2n) | (1n << 4n)]);
    const payouts = { address: CONTRACT, topics: log.topics, data: log.data };
    expect(batchOutcomeOf([payouts], CONTRACT)).toEqual({ token: getAddress(TOKEN), count: 5, failed: [2, 4] });
    expect(batchOutcomeOf([{ ...payouts, address: ZeroAddress }], CONTRACT)).toBeNull();
    expect(batchOutcomeOf([], CONTRACT)).toBeNull();
  });
});
