/**
 * Fee policy of chain transactions (shared/domain/chain-tx.ts), in bigint wei. Pure.
 *
 * Initial fees: EIP-1559 when the chain reports a base fee (`maxFeePerGas = 2 × baseFee + tip`, the tip from
 * the node), legacy `gasPrice` otherwise; both capped by configuration.
 * Bumps: a replacement must raise every fee field by at least 10 % (geth, anvil and most pools refuse less);
 * we raise by `bumpPercent` (default 12.5 %, rounded up, at least +1 wei) or to the current suggestion if
 * that is higher. A bump that the caps would hold below the 10 % minimum is refused (`null`): the pool would
 * reject it, so the request keeps waiting with its current fees.
 */
import type { EvmFees, TxFees } from './chain-tx.js';

export interface FeeCaps {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface FeeSuggestion {
  /** Base fee of the latest block; undefined on a chain without EIP-1559. */
  readonly baseFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly gasPrice?: bigint;
}

export const MIN_REPLACEMENT_BUMP_PERCENT = 10n;
export const DEFAULT_BUMP_PERCENT_X10 = 125n; // 12.5 %
export const DEFAULT_PRIORITY_FEE = 1_000_000_000n; // 1 gwei

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const max = (...values: bigint[]): bigint => values.reduce((a, b) => (a > b ? a : b));
/** ceil(value × (1000 + permille) / 1000), and at least value + 1. */
const raise = (value: bigint, permille: bigint): bigint => max(value + 1n, (value * (1000n + permille) + 999n) / 1000n);

export function initialFees(suggestion: FeeSuggestion, caps: FeeCaps): EvmFees {
  if (suggestion.baseFeePerGas !== undefined) {
    const tip = min(suggestion.maxPriorityFeePerGas ?? DEFAULT_PRIORITY_FEE, caps.maxPriorityFeePerGas);
    const maxFee = min(suggestion.baseFeePerGas * 2n + tip, caps.maxFeePerGas);
    return { type: 2, maxFeePerGas: maxFee, maxPriorityFeePerGas: min(tip, maxFee) };
  }
  const gasPrice = suggestion.gasPrice;
  if (gasPrice === undefined) throw new RangeError('The chain suggested neither a base fee nor a gas price');
  return { type: 0, gasPrice: min(gasPrice, caps.maxFeePerGas) };
}

/** Fees for a replacement of `previous`; null when the caps do not allow a valid replacement. */
export function bumpFees(previous: TxFees, suggestion: FeeSuggestion, caps: FeeCaps, bumpPermille: bigint = DEFAULT_BUMP_PERCENT_X10): EvmFees | null {
  const required = (v: bigint): bigint => (v * (100n + MIN_REPLACEMENT_BUMP_PERCENT) + 99n) / 100n;
  if (previous.type === 'tron' || previous.type === 'btc') return null;
  if (previous.type === 2) {
    const now = suggestion.baseFeePerGas === undefined ? undefined : initialFees(suggestion, caps);
    const nowTip = now?.type === 2 ? now.maxPriorityFeePerGas : 0n;
    const nowMax = now?.type === 2 ? now.maxFeePerGas : 0n;
    const tip = min(max(raise(previous.maxPriorityFeePerGas, bumpPermille), nowTip), caps.maxPriorityFeePerGas);
    const maxFee = min(max(raise(previous.maxFeePerGas, bumpPermille), nowMax, tip), caps.maxFeePerGas);
    if (tip < required(previous.maxPriorityFeePerGas) || maxFee < required(previous.maxFeePerGas) || tip > maxFee) return null;
    return { type: 2, maxFeePerGas: maxFee, maxPriorityFeePerGas: tip };
  }
  const gasPrice = min(max(raise(previous.gasPrice, bumpPermille), suggestion.gasPrice ?? 0n), caps.maxFeePerGas);
  if (gasPrice < required(previous.gasPrice)) return null;
  return { type: 0, gasPrice };
}

/** The most a transaction can cost in gas: what the wallet must hold besides `value`. */
export function maxGasCost(fees: TxFees, gasLimit: bigint): bigint {
  if (fees.type === 'tron') return fees.feeLimit;
  if (fees.type === 'btc') return fees.fee;
  return gasLimit * (fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice);
}

/** Estimated gas plus a safety margin (20 %, rounded up). */
export function withGasMargin(estimate: bigint): bigint {
  return (estimate * 120n + 99n) / 100n;
}
