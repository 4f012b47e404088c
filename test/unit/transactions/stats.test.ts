import fc from 'fast-check';
import type { Decimal } from '../../../shared/domain/money.js';
import { add } from '../../../shared/domain/money.js';
import type { TransactionRecord } from '../../../shared/domain/transactions.js';
import { statsDelta, statsOf, TRANSACTION_TYPES } from '../../../shared/domain/transactions.js';

/**
 * The statistics counters are kept by deltas, one per change of a movement: whatever the order of the changes,
 * the counters end equal to what the movements' final records say.
 */
const STATUSES = ['waiting', 'confirming', 'completed', 'failed'] as const;

const record = (id: string, type: (typeof TRANSACTION_TYPES)[number], status: string, amount: string, fee: string, usd: string | null): TransactionRecord => ({
  id,
  type,
  status,
  subtype: null,
  direction: 'in',
  currency: 'USDTERC20',
  amount,
  fee,
  net_amount: amount,
  amount_usd: usd,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: '2026-11-25T10:00:00.000Z',
  transaction_hash: null,
  order_id: null,
  custom_id: null,
  wallet_id: null,
});

const step = fc.record({
  movement: fc.integer({ min: 0, max: 4 }),
  type: fc.constantFrom(...TRANSACTION_TYPES),
  status: fc.constantFrom(...STATUSES),
  amount: fc.integer({ min: 1, max: 10_000_000 }).map((n) => (n / 100).toFixed(2)),
});

it('counters kept by deltas equal the statistics of the final records (property)', () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
      const current = new Map<number, TransactionRecord>();
      const counters: Record<string, Decimal> = {};
      for (const s of steps) {
        const previous = current.get(s.movement) ?? null;
        // A movement keeps its type; its status and amounts change.
        const next = record(`m${s.movement}`, previous?.type ?? s.type, s.status, s.amount, '0.5', s.amount);
        for (const [name, value] of Object.entries(statsDelta(previous, next))) counters[name] = add(counters[name] ?? '0', value);
        current.set(s.movement, next);
      }
      const stats = statsOf({ from: '2026-11-25', to: '2026-11-25' }, counters);
      const finals = [...current.values()];
      for (const type of TRANSACTION_TYPES) {
        const mine = finals.filter((r) => r.type === type);
        expect(stats.counts[type]?.total).toBe(mine.length);
        for (const status of STATUSES) expect(stats.counts[type]?.by_status[status] ?? 0).toBe(mine.filter((r) => r.status === status).length);
        const done = mine.filter((r) => r.status === 'completed');
        expect(stats.volume.USDTERC20?.[type]?.amount ?? '0').toBe(done.reduce((acc, r) => add(acc, r.amount), '0'));
        expect(stats.volume_usd[type] ?? '0').toBe(done.reduce((acc, r) => add(acc, r.amount_usd ?? '0'), '0'));
      }
      expect(stats.fees.USDTERC20 ?? '0').toBe(finals.filter((r) => r.status === 'completed').reduce((acc, r) => add(acc, r.fee), '0'));
    }),
    { numRuns: 300 },
  );
});

it('a change that moves nothing counts nothing', () => {
  const r = record('x', 'payment', 'waiting', '25', '0.25', '25.00');
  expect(statsDelta(r, { ...r, updated_at: '2026-11-25T11:00:00.000Z' })).toEqual({});
  expect(statsDelta(null, r)).toEqual({ 'n|payment|waiting|USDTERC20': '1' });
  expect(statsDelta(r, { ...r, status: 'completed' })).toEqual({
    'n|payment|waiting|USDTERC20': '-1',
    'n|payment|completed|USDTERC20': '1',
    'v|payment|USDTERC20': '25',
    'f|payment|USDTERC20': '0.25',
    'u|payment': '25.00',
  });
});
