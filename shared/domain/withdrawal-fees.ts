import type { CurrencyCode, CurrencyDefinition } from './currencies.js';
import { CURRENCIES, CURRENCY_CODES } from './currencies.js';
import { platformFee, withdrawalTotals } from './fees.js';
import type { WithdrawalTotals } from './fees.js';
import type { Decimal } from './money.js';
import { add, div, gt, isDecimalText, isPositive, lt, normalize, round, ROUND_FEE, ROUND_PAYOUT, scaleOf, sub, toFixed } from './money.js';

/**
 * Withdrawal fees: the network fee table (defaults and operator overrides) and the fee math (DESIGN section 4).
 * The lifecycle of a withdrawal is in ./withdrawals.ts.
 * The recipient receives `amount`; `total_deducted = amount + network fee + platform fee`; the platform fee is
 * the tenant's `transaction_fee` percent of the amount, rounded up, never below the catalogue's `minFee`.
 */

/** Network fee charged per withdrawal of each currency, in that currency. */
export type NetworkFeeTable = Readonly<Record<CurrencyCode, Decimal>>;
/** Operator overrides of some currencies' network fees (configuration `WITHDRAWAL_NETWORK_FEES`). */
export type NetworkFeeOverrides = Readonly<Partial<Record<CurrencyCode, Decimal>>>;

/**
 * What a transfer to an address that is new on its chain costs on top of the network fee, in the withdrawn
 * currency. TRON: a TRC-20 transfer that creates the recipient's balance slot burns about twice the energy
 * (about 130,000 instead of 65,000), so the activation fee equals the default network fee.
 */
export const ADDRESS_ACTIVATION_FEES: Readonly<Partial<Record<CurrencyCode, Decimal>>> = {
  USDTTRC20: '1',
};

/**
 * The default network fee per withdrawal, in the withdrawn currency: what the hot wallet spends on gas for a
 * transfer on that network, rounded up to a round figure. The operator overrides any of them with
 * `WITHDRAWAL_NETWORK_FEES` (shared/config/config.ts); the use cases pass the resulting table in.
 */
export const DEFAULT_NETWORK_FEES: NetworkFeeTable = {
  USDTERC20: '3',
  USDCERC20: '3',
  DAIERC20: '3',
  USDTTRC20: '1',
  USDTPOLYGON: '0.1',
  USDTBSC: '0.3',
  USDTARB: '0.2',
  ETH: '0.001',
  WETH: '0.0015',
  BTC: '0.0001',
  MATIC: '0.05',
  // A transfer costs a few thousand lamports; creating the recipient's token account costs its rent (about 0.002 SOL).
  USDTSOL: '0.5',
};

/** The fee table in force: the defaults with the operator's overrides applied. */
export function networkFeeTable(overrides: NetworkFeeOverrides = {}): NetworkFeeTable {
  return Object.freeze({ ...DEFAULT_NETWORK_FEES, ...overrides });
}

/**
 * Reads the `WITHDRAWAL_NETWORK_FEES` text: a JSON object of catalogue currency code to a non-negative decimal
 * string with at most the currency's display precision (`{"USDTERC20":"1.5"}`); blank is no override. Throws
 * an Error naming every bad entry.
 */
export function parseNetworkFeeOverrides(text: string): NetworkFeeOverrides {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('must be a JSON object of currency code to fee, e.g. {"USDTERC20":"1.5"}');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('must be a JSON object of currency code to fee, e.g. {"USDTERC20":"1.5"}');
  }
  const problems: string[] = [];
  const out: Partial<Record<CurrencyCode, Decimal>> = {};
  for (const [code, value] of Object.entries(parsed)) {
    if (!(CURRENCY_CODES as readonly string[]).includes(code)) {
      problems.push(`unknown currency code ${JSON.stringify(code)} (known: ${CURRENCY_CODES.join(', ')})`);
      continue;
    }
    const currency = CURRENCIES[code as CurrencyCode];
    if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value) || !isDecimalText(value)) {
      problems.push(`${code} must be a non-negative decimal string such as "1.5", not ${JSON.stringify(value)}`);
      continue;
    }
    if (scaleOf(value) > currency.displayPrecision) {
      problems.push(`${code} has more than ${currency.displayPrecision} decimal places: ${value}`);
      continue;
    }
    out[code as CurrencyCode] = normalize(value);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return Object.freeze(out);
}

/** Eight-place string of an amount (estimates and withdrawal records). */
export const eight = (value: Decimal): string => toFixed(value, 8, ROUND_FEE);

export interface WithdrawalQuoteInput {
  readonly currency: CurrencyDefinition;
  readonly amount: Decimal;
  /** Percent, "1" is 1 %. */
  readonly feePercent: Decimal;
  /**
   * true (the default of a withdrawal): `amount` is what the recipient receives and fees come on top;
   * false: `amount` is the total that leaves the balance and the recipient receives it less fees.
   */
  readonly finalAmount: boolean;
  /** The network fees in force (`networkFeeTable`). */
  readonly networkFees: NetworkFeeTable;
}

export interface WithdrawalQuote extends WithdrawalTotals {
  /** What the client asked for. */
  readonly requested: Decimal;
}

/** Fees of a withdrawal whose recipient receives `amount`, with the network fee of `networkFees`. */
export function withdrawalQuote(currency: CurrencyDefinition, amount: Decimal, feePercent: Decimal, networkFees: NetworkFeeTable): WithdrawalTotals {
  const networkFee = networkFees[currency.code];
  const fee = platformFee({ amount, percent: feePercent, precision: currency.displayPrecision, minFee: currency.minFee });
  return withdrawalTotals(amount, networkFee, fee);
}

/**
 * Either direction of the estimate: with `finalAmount` false the requested amount includes the fees, so the
 * received amount is the largest `r` (rounded down at display precision) with `r + fees(r) <= requested`.
 */
export function quoteWithdrawal(input: WithdrawalQuoteInput): WithdrawalQuote {
  const { currency, amount, feePercent, networkFees } = input;
  if (input.finalAmount) return { ...withdrawalQuote(currency, amount, feePercent, networkFees), requested: amount };
  const networkFee = networkFees[currency.code];
  const p = currency.displayPrecision;
  const net = sub(amount, networkFee);
  if (!isPositive(net)) return { ...withdrawalQuote(currency, '0', feePercent, networkFees), amount: '0', totalDeducted: amount, requested: amount };
  // r * (1 + pct/100) <= net, or r + minFee <= net: take the smaller candidate, then step down while it overshoots.
  const byPercent = div(net, add('1', div(feePercent, '100', 18, ROUND_PAYOUT)), p, ROUND_PAYOUT);
  const byMinimum = round(sub(net, currency.minFee), p, ROUND_PAYOUT);
  let received = lt(byPercent, byMinimum) ? byPercent : byMinimum;
  const step = p === 0 ? '1' : `0.${'0'.repeat(p - 1)}1`;
  for (let i = 0; i < 5 && isPositive(received) && gt(withdrawalQuote(currency, received, feePercent, networkFees).totalDeducted, amount); i++) {
    received = sub(received, step);
  }
  if (!isPositive(received)) received = '0';
  return { ...withdrawalQuote(currency, received, feePercent, networkFees), requested: amount };
}
