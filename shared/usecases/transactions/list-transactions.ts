import * as z from 'zod';
import { isCurrencyCode } from '../../domain/currencies.js';
import { ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import type { TransactionRecord, TransactionType } from '../../domain/transactions.js';
import { isStatusOfType, STATUSES_BY_TYPE, TRANSACTION_TYPES } from '../../domain/transactions.js';
import { dateBound, isoDate, queryInteger } from '../schema.js';
import type { TransactionFilter, TransactionsPorts } from './ports.js';
import { presentTransaction } from './present.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

const EVERY_STATUS = [...new Set(Object.values(STATUSES_BY_TYPE).flat())];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The filters the list and the exports share (spec 4.7, plus `transfer`, `adjustment` and `wallet_id`), built with the schema that spreads them. */
export const TransactionFilterFields = () => ({
  type: z.enum(TRANSACTION_TYPES).optional(),
  status: z
    .string()
    .trim()
    .refine((s) => EVERY_STATUS.includes(s), WORDING.choice(EVERY_STATUS))
    .optional(),
  currency: z
    .string()
    .trim()
    .transform((c) => c.toUpperCase())
    .refine((c) => isCurrencyCode(c), WORDING.unknown('currency code'))
    .optional(),
  wallet_id: z.string().trim().regex(UUID, WORDING.format('uuid')).optional(),
  date_from: isoDate().optional(),
  date_to: isoDate().optional(),
});

/** The filter a query names, checked across fields: a status of the type asked, date_from not after date_to. */
export function transactionFilterOf(q: {
  type?: TransactionType | undefined;
  status?: string | undefined;
  currency?: string | undefined;
  wallet_id?: string | undefined;
  date_from?: string | undefined;
  date_to?: string | undefined;
}): TransactionFilter {
  const problems: Record<string, string[]> = {};
  if (q.type !== undefined && q.status !== undefined && !isStatusOfType(q.type, q.status)) {
    problems.status = [WORDING.choice(STATUSES_BY_TYPE[q.type])];
  }
  const from = q.date_from === undefined ? undefined : dateBound(q.date_from, false);
  const to = q.date_to === undefined ? undefined : dateBound(q.date_to, true);
  if (from !== undefined && to !== undefined && from > to) problems.date_to = [WORDING.contradicts('date_from', 'date_to must not be before date_from.')];
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
  return {
    ...(q.type !== undefined ? { type: q.type } : {}),
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.currency !== undefined ? { currency: q.currency } : {}),
    ...(q.wallet_id !== undefined ? { walletId: q.wallet_id.toLowerCase() } : {}),
    ...(from !== undefined ? { dateFrom: from } : {}),
    ...(to !== undefined ? { dateTo: to } : {}),
  };
}

/** `GET /transactions/transactions/` query. */
export const ListTransactionsQuery = lazySchema(() =>
  z
    .object({
      ...TransactionFilterFields(),
      limit: queryInteger(1, 200).optional(),
      offset: queryInteger(0, 100_000).optional(),
      cursor: z.string().trim().min(1).max(2000).optional(),
    })
    .check(
      z.superRefine((q, ctx) => {
        // The cursor says where the page starts: an offset beside it would be ignored, so it is refused.
        if (q.cursor !== undefined && q.offset !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['offset'], message: WORDING.contradicts('cursor', 'the cursor says where the page starts.') });
        }
      }),
    ),
);
export type ListTransactionsQuery = LazyOutput<typeof ListTransactionsQuery>;

export const TransactionItem = lazySchema(() =>
  z
    .object({
      id: z.string(),
      type: z.enum(TRANSACTION_TYPES),
      status: z.string(),
      subtype: z
        .string()
        .nullable()
        .meta({ description: 'to_sub / to_master for transfers, credit / debit for adjustments, transfer / deposit / withdrawal for custody movements.' }),
      direction: z.enum(['in', 'out']).meta({ description: 'Into or out of the balance the movement belongs to (wallet_id, or main).' }),
      currency: z.string(),
      amount: z.string(),
      fee: z.string(),
      net_amount: z
        .string()
        .meta({ description: 'What the movement did to its balance, unsigned: a payment credits amount less fee, a withdrawal debits amount plus fees.' }),
      amount_usd: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      transaction_hash: z.string().nullable(),
      order_id: z.string().nullable(),
      custom_id: z.string().nullable(),
      wallet_id: z.string().nullable(),
    })
    .meta({ id: 'TransactionRecord' }),
);

export const TransactionList = lazySchema(() =>
  z
    .object({
      transactions: z.array(TransactionItem()),
      total: z.number().int().meta({ description: 'Every movement matching the filters.' }),
      limit: z.number().int(),
      offset: z.number().int(),
      next_cursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last.' }),
    })
    .meta({ id: 'TransactionList' }),
);

const DEFAULT_LIMIT = 50;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * How many movements match: from the statistics counters (a few items per day) when they can tell, that is when
 * the filter names no wallet and its dates are whole days; else a COUNT query over the same index range.
 */
async function totalOf(tenantId: string, q: ListTransactionsQuery, filter: TransactionFilter, deps: Pick<TransactionsPorts, 'history'>): Promise<number> {
  const days = [q.date_from ?? '0000-01-01', q.date_to ?? '9999-12-31'];
  if (filter.walletId !== undefined || !days.every((d) => DAY.test(d))) return deps.history.count(tenantId, filter);
  const sums =
    q.date_from === undefined && q.date_to === undefined
      ? await deps.history.allTimeSums(tenantId)
      : await deps.history.statsSums(tenantId, days[0] ?? '', days[1] ?? '');
  let total = 0;
  for (const [name, value] of Object.entries(sums)) {
    const [kind, type, status, currency] = name.split('|');
    if (kind !== 'n') continue;
    if ((filter.type ?? type) !== type || (filter.status ?? status) !== status || (filter.currency ?? currency) !== currency) continue;
    total += Number(value);
  }
  return total;
}

/**
 * Every money movement of the tenant, newest first, from the history index (never a Scan). Pages by `limit` and
 * `offset`, or by the opaque `cursor` of the previous page (which then replaces the offset).
 */
export async function listTransactions(tenantId: string, q: ListTransactionsQuery, deps: Pick<TransactionsPorts, 'history'>) {
  const filter = transactionFilterOf(q);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const offset = q.cursor === undefined ? (q.offset ?? 0) : 0;
  const [page, total] = await Promise.all([
    deps.history.page(tenantId, filter, { limit, ...(q.cursor !== undefined ? { cursor: q.cursor } : { offset }) }),
    totalOf(tenantId, q, filter, deps),
  ]);
  const transactions: TransactionRecord[] = page.items.map(presentTransaction);
  return { transactions, total, limit, offset, next_cursor: page.cursor ?? null };
}
