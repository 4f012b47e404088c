import fc from 'fast-check';
import { ValidationError } from '../../../shared/domain/errors.js';
import { JsonNumber } from '../../../shared/domain/json-number.js';
import {
  add,
  cmp,
  displayPrecision,
  div,
  fromBaseUnits,
  jsonNumber,
  mul,
  normalize,
  parseDecimal,
  percentOf,
  round,
  sub,
  sum,
  toBaseUnits,
  toFixed,
} from '../../../shared/domain/money.js';

/** A decimal with up to 18 places and up to 20 integer digits, generated from bigint base units. */
const decimalArb = (maxScale = 18) =>
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: maxScale })).map(([units, scale]) => fromBaseUnits(units, scale));

describe('money', () => {
  it('adds 0.1 and 0.2 to exactly 0.3', () => {
    expect(add('0.1', '0.2')).toBe('0.3');
    expect(sum(['0.1', '0.2', '-0.3'])).toBe('0');
    expect(sub('0.3', '0.1')).toBe('0.2');
  });

  it('keeps 18-decimal amounts exact', () => {
    expect(add('0.000000000000000001', '999999999999.999999999999999999')).toBe('1000000000000');
    expect(mul('1.000000000000000001', '3')).toBe('3.000000000000000003');
  });

  it('parses decimal text and lossless JSON numbers into canonical text', () => {
    expect(parseDecimal('25.10')).toBe('25.1');
    expect(parseDecimal(new JsonNumber('25.10'))).toBe('25.1');
    expect(parseDecimal(new JsonNumber('1e-7'))).toBe('0.0000001');
    expect(parseDecimal('-0', { allowNegative: true })).toBe('0');
    expect(parseDecimal(42n)).toBe('42');
  });

  it('refuses what is not an exact decimal amount', () => {
    for (const bad of [0.1, '1,5', 'abc', '', '.5', '1e', null, undefined, {}, 'NaN', 'Infinity']) {
      expect(() => parseDecimal(bad)).toThrow(ValidationError);
    }
    expect(() => parseDecimal('-1')).toThrow(ValidationError);
    const details = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as ValidationError).details;
      }
      throw new Error('did not throw');
    };
    expect(details(() => parseDecimal('0', { allowZero: false, field: 'amount' }))).toEqual({ amount: ['Must be greater than 0.'] });
    expect(details(() => parseDecimal('1.1234567', { maxScale: 6 }))).toEqual({ amount: ['Must have at most 6 decimal places.'] });
    expect(details(() => parseDecimal('1' + '0'.repeat(38) + '.1'))).toEqual({ amount: ['Must have at most 38 significant digits.'] });
  });

  it('rounds explicitly: payable up, payout down', () => {
    expect(div('1', '3', 6, 'up')).toBe('0.333334');
    expect(div('1', '3', 6, 'down')).toBe('0.333333');
    expect(div('2', '3', 2, 'half-up')).toBe('0.67');
    expect(div('1', '8', 2, 'half-even')).toBe('0.12');
    expect(round('1.0000001', 6, 'up')).toBe('1.000001');
    expect(round('1.9999999', 6, 'down')).toBe('1.999999');
    expect(percentOf('100', '1', 6, 'up')).toBe('1');
    expect(percentOf('0.000001', '1', 6, 'up')).toBe('0.000001');
    expect(toFixed('25.1', 2, 'down')).toBe('25.10');
    expect(toFixed('-0.0000001', 2, 'down')).toBe('0.00');
  });

  it('converts base units exactly and refuses hidden rounding', () => {
    expect(toBaseUnits('25.1', 6)).toBe(25_100_000n);
    expect(fromBaseUnits(25_100_000n, 6)).toBe('25.1');
    expect(toBaseUnits('0.000000000000000001', 18)).toBe(1n);
    expect(() => toBaseUnits('0.0000001', 6)).toThrow(RangeError);
    expect(toBaseUnits('0.0000001', 6, 'up')).toBe(1n);
    expect(toBaseUnits('0.0000019', 6, 'down')).toBe(1n);
  });

  it('display precision is min(decimals, 8)', () => {
    expect([6, 8, 18].map(displayPrecision)).toEqual([6, 8, 8]);
  });

  it('serialises answers that are numbers as exact JSON numbers', () => {
    expect(jsonNumber('0.30').text).toBe('0.3');
    expect(JSON.stringify({ a: jsonNumber('1.000000000000000001') })).toBe('{"a":"1.000000000000000001"}');
  });

  it('property: base units round-trip for any amount and decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 36n }), fc.integer({ min: 0, max: 18 }), (units, decimals) => {
        expect(toBaseUnits(fromBaseUnits(units, decimals), decimals)).toBe(units);
      }),
    );
  });

  it('property: addition and subtraction are exact inverses', () => {
    fc.assert(
      fc.property(decimalArb(), decimalArb(), (a, b) => {
        expect(sub(add(a, b), b)).toBe(normalize(a));
        expect(cmp(add(a, b), a)).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('property: up never rounds below, down never above, and both stay within one unit', () => {
    fc.assert(
      fc.property(decimalArb(), decimalArb(), fc.integer({ min: 0, max: 8 }), (a, b, dp) => {
        fc.pre(cmp(b, '0') > 0);
        const up = div(a, b, dp, 'up');
        const down = div(a, b, dp, 'down');
        // up * b >= a >= down * b
        expect(cmp(mul(up, b), a)).toBeGreaterThanOrEqual(0);
        expect(cmp(mul(down, b), a)).toBeLessThanOrEqual(0);
        expect(cmp(sub(up, down), `1e-${dp}`)).toBeLessThanOrEqual(0);
      }),
    );
  });
});
