import Big from 'big.js';
import { ValidationError } from './errors.js';
import { WORDING } from './errors-wording.js';
import { JsonNumber } from './json-number.js';

/**
 * Money arithmetic. Amounts are decimal strings (`Decimal`) or, on chain, `bigint` base units; never a JS
 * `number`. All arithmetic goes through big.js in strict mode (a `number` argument throws), and every
 * operation that can lose digits (division, rounding to a precision) takes its rounding mode explicitly:
 *
 * - amounts a customer must pay round UP (`ROUND_PAYABLE`), so the gateway never under-asks;
 * - fees round UP (`ROUND_FEE`);
 * - amounts paid out round DOWN (`ROUND_PAYOUT`), so the gateway never pays more than it holds.
 *
 * `up` and `down` are away from and toward zero; amounts are non-negative wherever they are rounded.
 */

/** A decimal amount as exact text, e.g. "25.1". Results of this module are canonical (no exponent, no trailing zeros). */
export type Decimal = string;

export type Rounding = 'up' | 'down' | 'half-up' | 'half-even';

export const ROUND_PAYABLE: Rounding = 'up';
export const ROUND_FEE: Rounding = 'up';
export const ROUND_PAYOUT: Rounding = 'down';

/** Largest number of fraction digits any amount may carry (ERC-20 tokens with 18 decimals). */
export const MAX_SCALE = 18;
/** DynamoDB Numbers hold 38 significant digits; every stored amount must fit. */
export const MAX_SIGNIFICANT_DIGITS = 38;

// An independent big.js constructor: strict (numbers rejected), never exponential notation.
const D = Big();
D.strict = true;
D.DP = 40;
D.RM = D.roundHalfEven;
D.NE = -1_000_000;
D.PE = 1_000_000;

const MODES = {
  up: D.roundUp,
  down: D.roundDown,
  'half-up': D.roundHalfUp,
  'half-even': D.roundHalfEven,
} as const satisfies Record<Rounding, Big.RoundingMode>;

const DECIMAL_TEXT = /^-?(0|[1-9]\d*|0\d+)(\.\d+)?([eE][+-]?\d{1,3})?$/;
const MAX_TEXT_LENGTH = 100;

export type DecimalInput = Decimal | JsonNumber | bigint;

/** True for text this module accepts as a decimal (plain or JSON-number notation). */
export function isDecimalText(text: string): boolean {
  return text.length <= MAX_TEXT_LENGTH && DECIMAL_TEXT.test(text);
}

function big(value: DecimalInput): Big.Big {
  if (typeof value === 'bigint') return new D(value.toString());
  const text = value instanceof JsonNumber ? value.text : value;
  if (typeof text !== 'string' || !isDecimalText(text)) throw new TypeError(`Not a decimal: ${String(text)}`);
  return new D(text);
}

function canonical(value: Big.Big): Decimal {
  const text = value.toFixed();
  return text === '-0' ? '0' : text;
}

export interface ParseOptions {
  /** Field name for the validation error (dotted path). */
  readonly field?: string;
  /** Most fraction digits allowed; more is a validation error (never silently rounded). */
  readonly maxScale?: number;
  readonly allowNegative?: boolean;
  readonly allowZero?: boolean;
}

/**
 * Parses a decimal from request input (decimal text, a lossless JSON number, or a bigint) into canonical
 * text. Invalid input is a ValidationError on `field`; nothing is rounded.
 */
export function parseDecimal(input: unknown, options: ParseOptions = {}): Decimal {
  const field = options.field ?? 'amount';
  let text: string;
  if (input instanceof JsonNumber) text = input.text;
  else if (typeof input === 'string') text = input.trim();
  else if (typeof input === 'bigint') text = input.toString();
  else throw ValidationError.field(field, input === undefined ? WORDING.required : input === null ? WORDING.null : WORDING.wrongType('number'));
  if (!isDecimalText(text)) throw ValidationError.field(field, WORDING.format('decimal'));
  const value = new D(text);
  if (!options.allowNegative && value.lt('0')) throw ValidationError.field(field, WORDING.min(0));
  if (options.allowZero === false && value.eq('0')) throw ValidationError.field(field, WORDING.min(0, true));
  const maxScale = options.maxScale ?? MAX_SCALE;
  if (scaleOf(canonical(value)) > maxScale) throw ValidationError.field(field, WORDING.scale(maxScale));
  if (significantDigits(canonical(value)) > MAX_SIGNIFICANT_DIGITS) throw ValidationError.field(field, WORDING.digits(MAX_SIGNIFICANT_DIGITS));
  return canonical(value);
}

/** Canonical text of a decimal: `"25.10"` -> `"25.1"`, `"1e-7"` -> `"0.0000001"`, `"-0"` -> `"0"`. */
export function normalize(value: DecimalInput): Decimal {
  return canonical(big(value));
}

/** Number of fraction digits of the canonical form. */
export function scaleOf(value: DecimalInput): number {
  const text = canonical(big(value));
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Significant digits of the canonical form (what a DynamoDB Number must hold). */
export function significantDigits(value: DecimalInput): number {
  const digits = canonical(big(value)).replace(/^-/, '').replace('.', '').replace(/^0+/, '');
  return Math.max(digits.length, 1);
}

export const add = (a: DecimalInput, b: DecimalInput): Decimal => canonical(big(a).plus(big(b)));
export const sub = (a: DecimalInput, b: DecimalInput): Decimal => canonical(big(a).minus(big(b)));
export const mul = (a: DecimalInput, b: DecimalInput): Decimal => canonical(big(a).times(big(b)));
export const neg = (a: DecimalInput): Decimal => canonical(big(a).times('-1'));
export const abs = (a: DecimalInput): Decimal => canonical(big(a).abs());

export function sum(values: readonly DecimalInput[]): Decimal {
  return canonical(values.reduce<Big.Big>((acc, v) => acc.plus(big(v)), new D('0')));
}

/** a / b rounded to `dp` fraction digits with an explicit rounding mode (big.js rounds on the exact remainder). */
export function div(a: DecimalInput, b: DecimalInput, dp: number, rounding: Rounding): Decimal {
  const divisor = big(b);
  if (divisor.eq('0')) throw new RangeError('Division by zero');
  if (!Number.isInteger(dp) || dp < 0 || dp > 60) throw new RangeError(`Bad precision: ${dp}`);
  const C = Big();
  C.strict = true;
  C.DP = dp;
  C.RM = MODES[rounding];
  C.NE = D.NE;
  C.PE = D.PE;
  return canonical(new D(new C(big(a).toFixed()).div(new C(divisor.toFixed())).toFixed()));
}

/** Rounds to `dp` fraction digits with an explicit rounding mode (canonical text). */
export function round(a: DecimalInput, dp: number, rounding: Rounding): Decimal {
  return canonical(big(a).round(dp, MODES[rounding]));
}

/** Fixed-point text with exactly `dp` fraction digits (for display: `"25.10"`). */
export function toFixed(a: DecimalInput, dp: number, rounding: Rounding): string {
  const text = big(a).round(dp, MODES[rounding]).toFixed(dp);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

export function cmp(a: DecimalInput, b: DecimalInput): -1 | 0 | 1 {
  return big(a).cmp(big(b)) as -1 | 0 | 1;
}

export const eq = (a: DecimalInput, b: DecimalInput): boolean => cmp(a, b) === 0;
export const gt = (a: DecimalInput, b: DecimalInput): boolean => cmp(a, b) > 0;
export const gte = (a: DecimalInput, b: DecimalInput): boolean => cmp(a, b) >= 0;
export const lt = (a: DecimalInput, b: DecimalInput): boolean => cmp(a, b) < 0;
export const lte = (a: DecimalInput, b: DecimalInput): boolean => cmp(a, b) <= 0;
export const isZero = (a: DecimalInput): boolean => big(a).eq('0');
export const isPositive = (a: DecimalInput): boolean => big(a).gt('0');
export const isNegative = (a: DecimalInput): boolean => big(a).lt('0');
export const min = (a: DecimalInput, b: DecimalInput): Decimal => (lte(a, b) ? normalize(a) : normalize(b));
export const max = (a: DecimalInput, b: DecimalInput): Decimal => (gte(a, b) ? normalize(a) : normalize(b));

/** `percent` % of `amount` (percent "1" is 1 %), rounded at `dp`. */
export function percentOf(amount: DecimalInput, percent: DecimalInput, dp: number, rounding: Rounding): Decimal {
  return div(big(amount).times(big(percent)).toFixed(), '100', dp, rounding);
}

/**
 * A decimal amount in base units (`decimals` = the token's decimals). An amount with more fraction digits
 * than the token has is refused unless a rounding mode says which way to go.
 */
export function toBaseUnits(amount: DecimalInput, decimals: number, rounding?: Rounding): bigint {
  assertDecimals(decimals);
  let value = big(amount);
  if (scaleOf(canonical(value)) > decimals) {
    if (!rounding) throw new RangeError(`${canonical(value)} has more than ${decimals} decimal places`);
    value = value.round(decimals, MODES[rounding]);
  }
  return BigInt(value.times(new D(`1e${decimals}`)).toFixed(0));
}

/** Base units as a canonical decimal: `fromBaseUnits(25100000n, 6)` is `"25.1"`. */
export function fromBaseUnits(units: bigint, decimals: number): Decimal {
  assertDecimals(decimals);
  return canonical(new D(units.toString()).div(new D(`1e${decimals}`)));
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) throw new RangeError(`Bad decimals: ${decimals}`);
}

/** Display precision of a token: min(decimals, 8). */
export function displayPrecision(decimals: number): number {
  return Math.min(decimals, 8);
}

/** A decimal as a JSON number for answers where the interface says "number". */
export function jsonNumber(value: DecimalInput): JsonNumber {
  return JsonNumber.of(normalize(value));
}
