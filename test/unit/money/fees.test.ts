import fc from 'fast-check';
import { ValidationError } from '../../../shared/domain/errors.js';
import { parseFeePercent, paymentSplit, platformFee, withdrawalTotals } from '../../../shared/domain/fees.js';
import { cmp, fromBaseUnits, mul, scaleOf, sub } from '../../../shared/domain/money.js';

describe('fees', () => {
  it('rounds the platform fee up at the currency precision, with a minimum', () => {
    expect(platformFee({ amount: '10.000001', percent: '1', precision: 6 })).toBe('0.100001');
    expect(platformFee({ amount: '5', percent: '1', precision: 6, minFee: '0.1' })).toBe('0.1');
    expect(platformFee({ amount: '5', percent: '0', precision: 6, minFee: '0.1' })).toBe('0');
  });

  it('splits a payment by who pays the fee', () => {
    expect(paymentSplit({ amount: '100', percent: '1', precision: 6, isFeePaidByUser: true })).toEqual({
      customerPays: '101',
      merchantReceives: '100',
      fee: '1',
    });
    expect(paymentSplit({ amount: '100', percent: '1', precision: 6, isFeePaidByUser: false })).toEqual({
      customerPays: '100',
      merchantReceives: '99',
      fee: '1',
    });
  });

  it('totals a withdrawal', () => {
    expect(withdrawalTotals('10', '1.5', '0.1')).toEqual({ amount: '10', networkFee: '1.5', platformFee: '0.1', totalFee: '1.6', totalDeducted: '11.6' });
  });

  it('validates a fee percentage', () => {
    expect(parseFeePercent('2.5')).toBe('2.5');
    expect(() => parseFeePercent('101')).toThrow(ValidationError);
    expect(() => parseFeePercent('-1')).toThrow(ValidationError);
  });

  it('property: the fee is never below the exact percentage and fits the precision', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.integer({ min: 0, max: 500 }), fc.boolean(), (units, bps, byUser) => {
        const amount = fromBaseUnits(units, 6);
        const percent = fromBaseUnits(BigInt(bps), 2);
        const split = paymentSplit({ amount, percent, precision: 6, isFeePaidByUser: byUser });
        expect(scaleOf(split.fee)).toBeLessThanOrEqual(6);
        // fee * 100 >= amount * percent, and less than one unit above it
        expect(cmp(mul(split.fee, '100'), mul(amount, percent))).toBeGreaterThanOrEqual(0);
        expect(cmp(mul(sub(split.fee, '0.000001'), '100'), mul(amount, percent))).toBeLessThan(0);
        if (byUser || cmp(split.merchantReceives, '0') > 0) expect(sub(split.customerPays, split.merchantReceives)).toBe(split.fee);
      }),
    );
  });
});
