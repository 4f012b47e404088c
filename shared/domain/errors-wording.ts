/**
 * One wording per kind of input error, on every endpoint: what `details` says of a field (or query parameter) that
 * a request gets wrong (spec 7.1: each field mapped to a list of messages, in the interface's words: "This field is
 * required."). The zod error map of the request pipeline (`wordingOf` in shared/usecases/schema.ts) answers each
 * issue from this table, and the hand-written checks (decimals, dates, the body forms) take their text from it, so
 * a missing field reads the same on payments, withdrawals, wallets and custody. docs/requests.md ("Error wording")
 * publishes the table (scripts/error-wording-table.ts; test/unit/http/error-wording.test.ts keeps them equal).
 */

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

/** Which wording each kind of error has, in the order docs/requests.md shows them, with an example of each. */
export const WORDING_KINDS: readonly { readonly kind: string; readonly example: string }[] = [
  { kind: 'missing field', example: WORDING.required },
  { kind: 'missing field another field needs', example: WORDING.requiredWhere('with token') },
  { kind: 'null', example: WORDING.null },
  { kind: 'empty text', example: WORDING.blank },
  ...(Object.keys(TYPE_NAMES) as ExpectedType[]).map((t) => ({ kind: `wrong type (${t} expected)`, example: WORDING.wrongType(t) })),
  { kind: 'not one of a set', example: WORDING.choice(['waiting', 'confirming', 'completed']) },
  { kind: 'a name the catalogue does not know', example: WORDING.unknown('currency code') },
  { kind: 'text too short / too long', example: `${WORDING.minLength(3)} / ${WORDING.maxLength(64)}` },
  { kind: 'number too small / too large', example: `${WORDING.min(1)} / ${WORDING.max(1440)}` },
  { kind: 'number at an excluded bound', example: `${WORDING.min(0, true)} / ${WORDING.max(100, true)}` },
  { kind: 'too few / too many items', example: `${WORDING.minItems(1)} / ${WORDING.maxItems(10)}` },
  ...(Object.keys(FORMAT_NAMES) as FormatName[]).map((f) => ({ kind: `bad format (${f})`, example: WORDING.format(f) })),
  { kind: 'too many decimal places', example: WORDING.scale(2) },
  { kind: 'too many significant digits', example: WORDING.digits(30) },
  { kind: 'unknown body field', example: WORDING.unknownField },
  { kind: 'unknown query parameter', example: WORDING.unknownParameter },
  {
    kind: 'parameter of the other list form',
    example: `${WORDING.otherFormAdd('offset form', ['limit', 'offset'])} / ${WORDING.otherFormRemove('page form', ['limit'])}`,
  },
  { kind: 'fields that contradict each other', example: WORDING.contradicts('currency', 'USDTERC20 is USDT on ETH.') },
  { kind: 'body not valid JSON', example: WORDING.notJson },
  { kind: 'body not a JSON object', example: WORDING.notAnObject },
  { kind: 'cursor not handed out by the list', example: WORDING.notOurs },
  { kind: 'any other refused value', example: WORDING.invalid },
];
