/**
 * Small typed readers of environment variables, one per kind of value (shared/config/config.ts builds its table
 * of them). A reader takes the raw value (`undefined` when the variable is unset) and returns the typed value, or
 * throws a `Refusal` whose message says what the value must be; the caller names the variable.
 */

/** What a reader throws: the value is refused, the message says why (without the variable's name). */
export class Refusal extends Error {}

export type Reader<T> = (raw: string | undefined) => T;

function refuse(message: string): never {
  throw new Refusal(message);
}

/** `fallback` when unset; otherwise `read` (which never sees `undefined`). */
function withDefault<T>(fallback: string, read: (raw: string) => T): Reader<T> {
  return (raw) => read(raw ?? fallback);
}

/** `undefined` when unset; otherwise `read`. */
function optional<T>(read: (raw: string) => T): Reader<T | undefined> {
  return (raw) => (raw === undefined ? undefined : read(raw));
}

function nonEmpty(raw: string): string {
  return raw.length > 0 ? raw : refuse('must not be empty');
}

/** A required non-empty string. */
export function text(): Reader<string> {
  return (raw) => (raw === undefined ? refuse('is required') : nonEmpty(raw));
}

/** A non-empty string, `fallback` when unset. */
export function textOr(fallback: string): Reader<string> {
  return withDefault(fallback, nonEmpty);
}

/** A non-empty string, or nothing. */
export function optionalText(): Reader<string | undefined> {
  return optional(nonEmpty);
}

interface Range {
  readonly min?: number;
  readonly max?: number;
}

function number(raw: string, integer: boolean, { min, max }: Range): number {
  const n = raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(n)) refuse(`must be a number, not "${raw}"`);
  if (integer && !Number.isSafeInteger(n)) refuse(`must be an integer, not "${raw}"`);
  if (min !== undefined && n < min) refuse(`must be at least ${min}, not ${n}`);
  if (max !== undefined && n > max) refuse(`must be at most ${max}, not ${n}`);
  return n;
}

/** An integer within [min, max] (either bound optional), `fallback` when unset. */
export function int(range: Range, fallback: number): Reader<number> {
  return withDefault(String(fallback), (raw) => number(raw, true, range));
}

/** An integer of at least 1, `fallback` when unset. */
export function positiveInt(fallback: number): Reader<number> {
  return int({ min: 1 }, fallback);
}

/** An integer within [min, max], or nothing. */
export function optionalInt(range: Range): Reader<number | undefined> {
  return optional((raw) => number(raw, true, range));
}

/** A number (fractions allowed) within [min, max], `fallback` when unset. */
export function decimalNumber(range: Range, fallback: number): Reader<number> {
  return withDefault(String(fallback), (raw) => number(raw, false, range));
}

const DECIMAL = /^\d+(\.\d+)?$/;

function decimalText(raw: string): string {
  return DECIMAL.test(raw) ? raw : refuse(`must be a non-negative decimal such as 0.5, not "${raw}"`);
}

/** A non-negative decimal string (`0.5`, `12`), `fallback` when unset. */
export function decimal(fallback: string): Reader<string> {
  return withDefault(fallback, decimalText);
}

function isUrl(raw: string): boolean {
  try {
    new URL(raw);
    return true;
  } catch {
    return false;
  }
}

function urlText(raw: string): string {
  const trimmed = raw.trim();
  return isUrl(trimmed) ? trimmed : refuse(`must be a URL, not "${raw}"`);
}

/** A URL (surrounding blanks dropped), `fallback` when unset. */
export function url(fallback: string): Reader<string> {
  return withDefault(fallback, urlText);
}

/** A URL, or nothing. */
export function optionalUrl(): Reader<string | undefined> {
  return optional(urlText);
}

/** One of `values`, or nothing. */
export function optionalOneOf<const T extends readonly string[]>(values: T): Reader<T[number] | undefined> {
  return optional((raw) => (values.includes(raw) ? (raw as T[number]) : refuse(`must be one of ${values.join(', ')}, not "${raw}"`)));
}

/** A string matching `pattern` (`message` otherwise), or nothing. */
export function optionalMatching(pattern: RegExp, message: string): Reader<string | undefined> {
  return optional((raw) => (pattern.test(raw) ? raw : refuse(message)));
}

/** `true|1` or `false|0`, `fallback` when unset. */
export function boolean(fallback: boolean): Reader<boolean> {
  return withDefault(String(fallback), (raw) => {
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    return refuse(`must be true, false, 1 or 0, not "${raw}"`);
  });
}

/** An unsigned integer written in decimal digits, as a bigint; `fallback` when unset. */
export function bigintDigits(fallback: string): Reader<bigint> {
  return withDefault(fallback, (raw) => (/^\d+$/.test(raw) ? BigInt(raw) : refuse(`must be decimal digits, not "${raw}"`)));
}

/** A USD amount with at most two decimals (`10000.00`), or `none` (null: no limit); `fallback` when unset. */
export function usdLimit(fallback: string): Reader<string | null> {
  return withDefault(fallback, (raw) => {
    if (!/^(none|\d+(\.\d{1,2})?)$/.test(raw)) refuse('must be a USD amount such as 10000.00, or none');
    return raw === 'none' ? null : raw;
  });
}

/** A comma-separated list (blanks around items and empty items dropped); empty when unset. */
export function list(): Reader<string[]> {
  return withDefault('', (raw) =>
    raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/** Value checks for `jsonRecord`: the value to keep, or undefined when refused. */
export type ValueCheck = (value: string) => string | undefined;
export const nonEmptyValue: ValueCheck = (v) => (v.length > 0 ? v : undefined);
export const urlValue: ValueCheck = (v) => (isUrl(v.trim()) ? v.trim() : undefined);
export const decimalValue: ValueCheck = (v) => (DECIMAL.test(v) ? v : undefined);

/**
 * A JSON object of string values each passing `check` (`{"ETH":"..."}`), `{}` when unset; `message` when the text
 * is not such an object.
 */
export function jsonRecord(check: ValueCheck, message: string): Reader<Record<string, string>> {
  return withDefault('{}', (raw) => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return refuse(message);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse(message);
    const record: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      const kept = typeof item === 'string' ? check(item) : undefined;
      if (kept === undefined) return refuse(message);
      record[key] = kept;
    }
    return record;
  });
}

/** The text (`{}` when unset) given to `parse`, whose error message becomes the refusal's. */
export function parsedBy<T>(parse: (raw: string) => T, fallback = '{}'): Reader<T> {
  return withDefault(fallback, (raw) => {
    try {
      return parse(raw);
    } catch (error) {
      return refuse((error as Error).message);
    }
  });
}
