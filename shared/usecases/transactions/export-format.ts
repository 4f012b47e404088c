import type { ExportFormat } from '../../domain/exports.js';
import type { TransactionRecord } from './ports.js';

/**
 * How an export file is written, piece by piece (the worker never holds the whole history): a header, one piece per
 * transaction, a footer. Every value is the history's own text: amounts are the exact decimal strings, never numbers.
 *
 * - CSV (RFC 4180): a header row of the column names, one row per transaction, CRLF line ends; a field containing a
 *   comma, a double quote, CR or LF is enclosed in double quotes with its quotes doubled; null is an empty field.
 * - JSON: one array of objects with the same keys in the same order (null stays null), one object per line.
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

const valuesOf = (r: TransactionRecord): (string | null)[] => EXPORT_COLUMNS.map((c) => r[c]);

const csv: ExportEncoder = {
  contentType: 'text/csv; charset=utf-8; header=present',
  header: csvRecord(EXPORT_COLUMNS),
  row: (r) => csvRecord(valuesOf(r)),
  footer: '',
};

const json: ExportEncoder = {
  contentType: 'application/json; charset=utf-8',
  header: '[\n',
  row: (r, index) => `${index === 0 ? '' : ',\n'}${JSON.stringify(Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, r[c]])))}`,
  footer: '\n]\n',
};

export const encoderFor = (format: ExportFormat): ExportEncoder => (format === 'csv' ? csv : json);
