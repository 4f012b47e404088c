import type { ExportFormat } from '../../domain/exports.js';
import type { TransactionRecord } from './ports.js';
import { presentTransaction } from './present.js';

/**
 * How an export file is written, piece by piece (the worker never holds the whole history): a header, one piece per
 * transaction, a footer. Every value is the history's text as the list shows it (`presentTransaction`): amounts are
 * exact decimal strings spelled as the movement's own record spells them, never numbers.
 *
 * - CSV (RFC 4180): a header row of the column names, one row per transaction, CRLF line ends; a field containing a
 *   comma, a double quote, CR or LF is enclosed in double quotes with its quotes doubled; null is an empty field.
 *   Safe to open in a spreadsheet (OWASP CSV injection): a text cell that begins with `=`, `+`, `-`, `@`, a tab or a
 *   carriage return is written with a single quote in front, so no spreadsheet takes it for a formula. The amount
 *   columns (`AMOUNT_COLUMNS`) are the gateway's own exact decimals, never a merchant's or a customer's text: they
 *   stay plain numbers (unsigned in the history; a negative number would still be a number, not a formula).
 * - JSON: one array of objects with the same keys in the same order (null stays null), one object per line; the
 *   values as they are (JSON is not read as formulas).
 */

/** The columns of a CSV export and the keys of a JSON one, in order. */
export const EXPORT_COLUMNS = [
  'id',
  'type',
  'subtype',
  'status',
  'direction',
  'currency',
  'amount',
  'fee',
  'net_amount',
  'amount_usd',
  'created_at',
  'updated_at',
  'transaction_hash',
  'order_id',
  'custom_id',
  'wallet_id',
] as const satisfies readonly (keyof TransactionRecord)[];

export type ExportColumn = (typeof EXPORT_COLUMNS)[number];

/** The columns whose values are the gateway's own decimals: written as numbers, never neutralised. */
export const AMOUNT_COLUMNS: ReadonlySet<ExportColumn> = new Set<ExportColumn>(['amount', 'fee', 'net_amount', 'amount_usd']);

/** The first characters that make a spreadsheet read a cell as a formula (OWASP: CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell a spreadsheet will show as text: a single quote before a leading `=`, `+`, `-`, `@`, tab or CR. */
export const neutralised = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value);

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field (RFC 4180 section 2, rules 5-7): quoted only when it must be. */
export function csvField(value: string | null): string {
  if (value === null) return '';
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One CSV record with its CRLF. */
export const csvRecord = (values: readonly (string | null)[]): string => `${values.map(csvField).join(',')}\r\n`;

export interface ExportEncoder {
  readonly contentType: string;
  readonly header: string;
  /** The piece of the `index`-th transaction (0-based). */
  row(record: TransactionRecord, index: number): string;
  readonly footer: string;
}

/** A record's CSV cells: presented, text cells neutralised. */
const csvCellsOf = (record: TransactionRecord): (string | null)[] => {
  const r = presentTransaction(record);
  return EXPORT_COLUMNS.map((c) => {
    const value = r[c];
    return value === null || AMOUNT_COLUMNS.has(c) ? value : neutralised(value);
  });
};

const csv: ExportEncoder = {
  contentType: 'text/csv; charset=utf-8; header=present',
  header: csvRecord(EXPORT_COLUMNS),
  row: (r) => csvRecord(csvCellsOf(r)),
  footer: '',
};

const json: ExportEncoder = {
  contentType: 'application/json; charset=utf-8',
  header: '[\n',
  row: (record, index) => {
    const r = presentTransaction(record);
    return `${index === 0 ? '' : ',\n'}${JSON.stringify(Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, r[c]])))}`;
  },
  footer: '\n]\n',
};

export const encoderFor = (format: ExportFormat): ExportEncoder => (format === 'csv' ? csv : json);
