import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { CurrencyCode } from '../../domain/currencies.js';
import { isCurrencyCode } from '../../domain/currencies.js';
import { WORDING } from '../../domain/errors-wording.js';
import type { BalanceRow, EntryType, Posting } from '../../domain/ledger.js';
import { ENTRY_TYPES, isEntryType, MAIN } from '../../domain/ledger.js';
import type { BalancesPorts } from './ports.js';
import { queryInteger } from '../schema.js';
import { showAmount } from './format.js';

/**
 * `GET /user/balances/history/`: the main account's journal, newest first, filtered by `currency` and
 * `type` (an entry type), paged by `limit` (default 50, at most 100) and `offset`. `count` is the number
 * of matching records, from the counters kept on the balance rows in the same transactions.
 * The query is validated by `BalanceHistoryQuery` (the route's query schema) before it gets here.
 */
export const BalanceHistoryQuery = lazySchema(() =>
  z.object({
    currency: z
      .string()
      .refine((c) => isCurrencyCode(c), WORDING.unknown('currency code'))
      .optional(),
    type: z
      .string()
      .refine((t) => isEntryType(t), WORDING.choice(ENTRY_TYPES))
      .optional(),
    limit: queryInteger(1, 100).default(50),
    offset: queryInteger(0, 1_000_000).default(0),
  }),
);
export type BalanceHistoryQuery = z.output<ReturnType<typeof BalanceHistoryQuery>>;

export interface HistoryRecord {
  readonly id: string;
  readonly type: EntryType;
  readonly currency: string;
  /** Signed change of the available amount, of the held amount and of the pending amount. */
  readonly amount: string;
  readonly locked_amount: string;
  readonly pending_amount: string;
  readonly reference: { readonly type: string; readonly id: string } | null;
  readonly description: string | null;
  readonly created_at: string;
}

export interface BalanceHistory {
  readonly count: number;
  readonly limit: number;
  readonly offset: number;
  readonly results: HistoryRecord[];
}

function countOf(rows: readonly BalanceRow[], type: EntryType | undefined): number {
  return rows.reduce((n, row) => n + (type ? (row.postingsByType[type] ?? 0) : row.postings), 0);
}

const present = (p: Posting): HistoryRecord => ({
  id: p.entryId,
  type: p.type,
  currency: p.currency,
  amount: showAmount(p.amount, p.currency),
  locked_amount: showAmount(p.locked, p.currency),
  pending_amount: showAmount(p.pending, p.currency),
  reference: p.reference ? { type: p.reference.kind, id: p.reference.id } : null,
  description: p.reason,
  created_at: p.createdAt,
});

export async function getBalanceHistory(input: { tenantId: string; query: BalanceHistoryQuery }, deps: Pick<BalancesPorts, 'ledger'>): Promise<BalanceHistory> {
  const { query } = input;
  const currency = query.currency as CurrencyCode | undefined;
  const type = query.type as EntryType | undefined;
  const [rows, postings] = await Promise.all([
    deps.ledger.balances(input.tenantId, MAIN),
    deps.ledger.postings(input.tenantId, MAIN, { currency, type, limit: query.limit, offset: query.offset }),
  ]);
  return {
    count: countOf(currency ? rows.filter((r) => r.currency === currency) : rows, type),
    limit: query.limit,
    offset: query.offset,
    results: postings.map(present),
  };
}
