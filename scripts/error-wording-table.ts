import { docTable, isMainScript, publishedTable, REQUESTS_PAGE, writeTable } from './doc-table.js';
import { FORMAT_NAMES, TYPE_NAMES, WORDING } from '../shared/domain/errors-wording.js';
import type { ExpectedType, FormatName } from '../shared/domain/errors-wording.js';

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

/**
 * The "Error wording" table of docs/requests.md, generated from the one table of messages
 * (shared/domain/errors-wording.ts). `npx tsx scripts/error-wording-table.ts` rewrites it between its markers;
 * test/unit/http/error-wording.test.ts fails while the page's table differs from the code.
 */

export const WORDING_TABLE_FILE = REQUESTS_PAGE;
const TABLE = docTable(WORDING_TABLE_FILE, 'error-wording', 'error-wording-table.ts');

const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function renderWordingTable(): string {
  const rows = WORDING_KINDS.map((k) => `| ${cell(k.kind)} | ${cell(k.example)} |`);
  return ['| Kind of error | Message in `details` (example) |', '|---|---|', ...rows].join('\n');
}

/** The table as the page holds it now (between the markers), or null without markers. */
export const publishedWordingTable = (page: string): string | null => publishedTable(page, TABLE);

if (isMainScript(import.meta.url)) writeTable(TABLE, renderWordingTable());
