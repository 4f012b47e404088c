import * as z from 'zod';
import { ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { statsOf } from '../../domain/transactions.js';
import { isoDate } from '../schema.js';
import type { TransactionsPorts } from './ports.js';
import { lazySchema } from '../../domain/lazy-schema.js';

/** `GET /transactions/stats/` query: a period of whole UTC days (a date-time names its day); default the last 30. */
export const TransactionStatsQuery = lazySchema(() => z.object({ date_from: isoDate().optional(), date_to: isoDate().optional() }));
export type TransactionStatsQuery = z.output<ReturnType<typeof TransactionStatsQuery>>;

const DEFAULT_DAYS = 30;
const MAX_DAYS = 3660;
const DAY_MS = 86_400_000;
const dayOf = (value: string): string => (/^\d{4}-\d{2}-\d{2}$/.test(value) ? value : new Date(value).toISOString().slice(0, 10));

const counts = lazySchema(() => z.object({ total: z.number().int(), by_status: z.record(z.string(), z.number().int()) }));
const amounts = lazySchema(() => z.object({ amount: z.string(), fees: z.string() }));
export const TransactionStats = lazySchema(() =>
  z
    .object({
      date_from: z.string().meta({ description: 'First UTC day of the period (inclusive).' }),
      date_to: z.string().meta({ description: 'Last UTC day of the period (inclusive).' }),
      counts: z.record(z.string(), counts()).meta({ description: 'Per type: movements created in the period, in total and by their current status.' }),
      volume: z
        .record(z.string(), z.record(z.string(), amounts()))
        .meta({ description: 'Per currency, per type: the amount and fees of the completed movements.' }),
      volume_usd: z.record(z.string(), z.string()).meta({ description: 'Per type: the USD value (fixed at creation) of completed movements that have one.' }),
      total_volume_usd: z.string(),
      fees: z.record(z.string(), z.string()).meta({ description: 'Per currency: fees of completed movements.' }),
    })
    .meta({ id: 'TransactionStats' }),
);

/**
 * Statistics of the movements created in a period, from the per-day counters kept in the movements' own
 * transactions (shared/domain/transactions.ts), never by reading the movements.
 */
export async function transactionStats(tenantId: string, q: TransactionStatsQuery, deps: Pick<TransactionsPorts, 'history' | 'clock'>) {
  const today = deps.clock.now().toISOString().slice(0, 10);
  const to = q.date_to === undefined ? today : dayOf(q.date_to);
  const from = q.date_from === undefined ? new Date(Date.parse(to) - (DEFAULT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10) : dayOf(q.date_from);
  if (from > to) throw ValidationError.field('date_to', WORDING.contradicts('date_from', 'date_to must not be before date_from.'));
  if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= MAX_DAYS) throw ValidationError.field('date_from', `A period is at most ${MAX_DAYS} days.`);
  return statsOf({ from, to }, await deps.history.statsSums(tenantId, from, to));
}
