import fc from 'fast-check';
import { bumpFees, initialFees, maxGasCost, withGasMargin } from '../../../shared/domain/chain-tx-fees.js';
import type { FeeCaps } from '../../../shared/domain/chain-tx-fees.js';

const GWEI = 1_000_000_000n;
const caps: FeeCaps = { maxFeePerGas: 500n * GWEI, maxPriorityFeePerGas: 50n * GWEI };

describe('chain-tx fees', () => {
  test('initial EIP-1559 fees: 2 × base fee + tip, capped; legacy gas price when there is no base fee', () => {
    expect(initialFees({ baseFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 2n * GWEI }, caps)).toEqual({
      type: 2,
      maxFeePerGas: 22n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
    });
    expect(initialFees({ baseFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 90n * GWEI }, caps)).toEqual({
      type: 2,
      maxFeePerGas: 500n * GWEI,
      maxPriorityFeePerGas: 50n * GWEI,
    });
    expect(initialFees({ gasPrice: 7n * GWEI }, caps)).toEqual({ type: 0, gasPrice: 7n * GWEI });
    expect(() => initialFees({}, caps)).toThrow(RangeError);
  });

  test('a bump raises every fee field by at least 10 %, never above the caps, or is refused', () => {
    fc.assert(
      fc.property(fc.bigInt(1n, 600n * GWEI), fc.bigInt(0n, 60n * GWEI), fc.bigInt(0n, 300n * GWEI), (maxFee, tipRaw, base) => {
        const tip = tipRaw > maxFee ? maxFee : tipRaw;
        const next = bumpFees({ type: 2, maxFeePerGas: maxFee, maxPriorityFeePerGas: tip }, { baseFeePerGas: base }, caps);
        if (next === null) return;
        expect(next.type).toBe(2);
        if (next.type !== 2) return;
        expect(next.maxFeePerGas * 100n).toBeGreaterThanOrEqual(maxFee * 110n);
        expect(next.maxPriorityFeePerGas * 100n).toBeGreaterThanOrEqual(tip * 110n);
        expect(next.maxFeePerGas).toBeLessThanOrEqual(caps.maxFeePerGas);
        expect(next.maxPriorityFeePerGas).toBeLessThanOrEqual(next.maxFeePerGas);
      }),
    );
  });

  test('bumps stop at the caps', () => {
    expect(bumpFees({ type: 2, maxFeePerGas: 480n * GWEI, maxPriorityFeePerGas: 1n * GWEI }, {}, caps)).toBeNull();
    expect(bumpFees({ type: 0, gasPrice: 10n * GWEI }, { gasPrice: 5n * GWEI }, caps)).toEqual({ type: 0, gasPrice: 11_250_000_000n });
    expect(bumpFees({ type: 0, gasPrice: 499n * GWEI }, {}, caps)).toBeNull();
  });

  test('gas cost and margin are exact', () => {
    expect(maxGasCost({ type: 2, maxFeePerGas: 3n, maxPriorityFeePerGas: 1n }, 21000n)).toBe(63000n);
    expect(withGasMargin(21001n)).toBe(25202n);
  });
});
