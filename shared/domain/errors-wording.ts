/**
 * One wording per kind of input error, on every endpoint: what `details` says of a field (or query parameter) that
 * a request gets wrong (spec 7.1: each field mapped to a list of messages, in the interface's words: "This field is
 * required."). The zod error map of the request pipeline (`wordingOf`, at the end of this file) answers each
 * issue from this table, and the hand-written checks (decimals, dates, the body forms) take their text from it, so
 * a missing field reads the same on payments, withdrawals, wallets and custody. docs/requests.md ("Error wording")
 * publishes the table (scripts/error-wording-table.ts; test/unit/http/error-wording.test.ts keeps them equal).
 */

import type * as z from 'zod';

/** The JSON types a field may expect, as the wrong-type message names them. */
export const TYPE_NAMES = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
} as const;
export type ExpectedType = keyof typeof TYPE_NAMES;

/** Formats a text field may have to follow, as the bad-format message names them. */
export const FORMAT_NAMES = {
  decimal: 'decimal number',
  integer: 'whole number',
  date: 'ISO 8601 date or date-time',
  uuid: 'UUID',
  email: 'email address',
  url: 'URL',
} as const;
export type FormatName = keyof typeof FORMAT_NAMES;

const list = (items: readonly unknown[]): string => items.map(String).join(', ');

export const WORDING = {
  /** A field the request must carry is absent. */
  required: 'This field is required.',
  /** A field absent that another field (or its absence) makes necessary: `with token`, `unless currency is given`. */
  requiredWhere: (when: string) => `This field is required ${when}.`,
  /** `null` where a value is needed. */
  null: 'This field may not be null.',
  /** Empty text (or only spaces) where text is needed. */
  blank: 'This field may not be blank.',
  /** A value of another JSON type (a number where a string is expected, ...). */
  wrongType: (expected: ExpectedType) => `Must be ${TYPE_NAMES[expected]}.`,
  /** A name (currency code, blockchain, address type) the catalogue does not know. */
  unknown: (what: string) => `Unknown ${what}.`,
  /** A value outside a fixed set. */
  choice: (allowed: readonly unknown[]) => `Must be one of: ${list(allowed)}.`,
  /** Text shorter or longer than allowed. */
  minLength: (n: number) => `Must have at least ${n} characters.`,
  maxLength: (n: number) => `Must have at most ${n} characters.`,
  /** A number below or above its bound (`exclusive`: the bound itself is refused too). */
  min: (n: number | string, exclusive = false) => (exclusive ? `Must be greater than ${n}.` : `Must be at least ${n}.`),
  max: (n: number | string, exclusive = false) => (exclusive ? `Must be less than ${n}.` : `Must be at most ${n}.`),
  /** A list with too few or too many items. */
  minItems: (n: number) => `Must have at least ${n} ${n === 1 ? 'item' : 'items'}.`,
  maxItems: (n: number) => `Must have at most ${n} ${n === 1 ? 'item' : 'items'}.`,
  /** Text that is not in the format the field takes. */
  format: (format: FormatName) => `Enter a valid ${FORMAT_NAMES[format]}.`,
  /** A decimal with more fraction digits, or more significant digits, than the field keeps. */
  scale: (n: number) => `Must have at most ${n} decimal places.`,
  digits: (n: number) => `Must have at most ${n} significant digits.`,
  /** A body field the endpoint does not take (where its body is closed). */
  unknownField: 'This endpoint does not take this field.',
  /** A query parameter the endpoint does not take. */
  unknownParameter: 'This endpoint does not take this parameter.',
  /** A parameter of the other form of a list with two forms (DESIGN section 10), and what makes that form. */
  otherFormAdd: (form: string, add: readonly string[]) => `This parameter belongs to the ${form}: add ${add.join(' or ')}.`,
  otherFormRemove: (form: string, remove: readonly string[]) => `This parameter belongs to the ${form}: remove ${remove.join(' and ')}.`,
  /** Fields of one body that say different things (a currency on one chain, a blockchain naming another). */
  contradicts: (other: string, why: string) => `Contradicts ${other}: ${why}`,
  /** A body that does not parse as JSON (under `body`; the error's message says where it stopped). */
  notJson: 'The body is not valid JSON.',
  /** A body that is not a JSON object (under `non_field_errors`). */
  notAnObject: 'The body must be a JSON object.',
  /** A cursor this list did not hand out (edited, another tenant's, of another list or of a place outside the filter). */
  notOurs: 'Not a cursor this list gave: send the next_cursor of the previous page, unchanged.',
  /** Anything else a field's own check refuses without saying more. */
  invalid: 'Enter a valid value.',
} as const;

/* ------------------------------------------------------------------------------------------------ the error map */

const EXPECTED: Readonly<Record<string, ExpectedType>> = {
  string: 'string',
  number: 'number',
  bigint: 'number',
  nan: 'number',
  int: 'integer',
  boolean: 'boolean',
  object: 'object',
  record: 'object',
  map: 'object',
  array: 'array',
  tuple: 'array',
  set: 'array',
};

const FORMATS: Readonly<Record<string, FormatName>> = { email: 'email', url: 'url', uuid: 'uuid', guid: 'uuid', datetime: 'date', date: 'date' };

const bound = (value: number | bigint): number | string => (typeof value === 'bigint' ? value.toString() : value);

/**
 * The zod error map of every request schema (shared/http/middleware/validation.ts passes it to each parse): each
 * kind of issue in the one wording of this table. A message a schema gives itself wins (zod's
 * precedence); those come from the same table.
 */
export function wordingOf(issue: z.core.$ZodRawIssue): string {
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && issue.input === undefined) return WORDING.required;
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && issue.input === null) return WORDING.null;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected];
      return expected === undefined ? WORDING.invalid : WORDING.wrongType(expected);
    }
    case 'invalid_value':
      return WORDING.choice(issue.values);
    case 'too_small': {
      const n = bound(issue.minimum);
      if (issue.origin === 'string') return n === 1 ? WORDING.blank : WORDING.minLength(Number(n));
      if (issue.origin === 'array' || issue.origin === 'set') return WORDING.minItems(Number(n));
      return WORDING.min(n, issue.inclusive === false);
    }
    case 'too_big': {
      const n = bound(issue.maximum);
      if (issue.origin === 'string') return WORDING.maxLength(Number(n));
      if (issue.origin === 'array' || issue.origin === 'set') return WORDING.maxItems(Number(n));
      return WORDING.max(n, issue.inclusive === false);
    }
    case 'invalid_format': {
      const format = FORMATS[issue.format];
      return format === undefined ? WORDING.invalid : WORDING.format(format);
    }
    case 'unrecognized_keys':
      return WORDING.unknownField;
    default:
      return WORDING.invalid;
  }
}
