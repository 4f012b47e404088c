import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { add, lte } from '../../../shared/domain/money.js';
import { DEFAULT_NETWORK_FEES, eight, quoteWithdrawal, withdrawalQuote } from '../../../shared/domain/withdrawal-fees.js';
import { cryptoAmountSortKey as withdrawalAmountSortKey } from '../../../shared/store/keys.js';

const fees = DEFAULT_NETWORK_FEES;

describe('withdrawal fee math', () => {
  it('adds the network fee and the platform fee (1 %, rounded up, at least the catalogue minimum)', () => {
    const t = withdrawalQuote(CURRENCIES.USDTERC20, '100', '1', fees);
    expect(t).toEqual({ amount: '100', networkFee: '3', platformFee: '1', totalFee: '4', totalDeducted: '104' });
    // 1 % of 10 is 0.1 = the minimum; of 5.5 it would be 0.055, so the minimum 0.1 applies.
    expect(withdrawalQuote(CURRENCIES.USDTTRC20, '5.5', '1', fees).platformFee).toBe('0.1');
    // Rounded up at display precision (USDT: 6).
    expect(withdrawalQuote(CURRENCIES.USDTTRC20, '12.345679', '1', fees).platformFee).toBe('0.123457');
    expect(withdrawalQuote(CURRENCIES.USDTTRC20, '100', '0', fees).platformFee).toBe('0');
  });

  it('final_amount=false: the received amount plus fees never exceeds the requested amount', () => {
    for (const [code, amount, pct] of [
      ['USDTERC20', '104', '1'],
      ['USDTTRC20', '10', '1'],
      ['ETH', '1', '2.5'],
      ['USDTBSC', '7.777777', '1'],
    ] as const) {
      const q = quoteWithdrawal({ currency: CURRENCIES[code], amount, feePercent: pct, finalAmount: false, networkFees: fees });
      expect(lte(q.totalDeducted, amount)).toBe(true);
      expect(q.totalDeducted).toBe(add(q.amount, q.totalFee));
      expect(q.requested).toBe(amount);
    }
    expect(quoteWithdrawal({ currency: CURRENCIES.USDTERC20, amount: '104', feePercent: '1', finalAmount: false, networkFees: fees }).amount).toBe('100');
  });

  it('final_amount=true: the amount is what the recipient receives', () => {
    const q = quoteWithdrawal({ currency: CURRENCIES.USDTERC20, amount: '100', feePercent: '1', finalAmount: true, networkFees: fees });
    expect([q.amount, q.totalDeducted]).toEqual(['100', '104']);
  });

  it('formats 8 places and sorts amounts as text', () => {
    expect(eight('1.5')).toBe('1.50000000');
    const keys = ['100', '9.5', '0.001', '20'].map(withdrawalAmountSortKey).sort();
    expect(keys).toEqual(['0.001', '9.5', '20', '100'].map(withdrawalAmountSortKey));
  });
});
