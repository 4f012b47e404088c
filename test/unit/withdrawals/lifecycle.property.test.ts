import fc from 'fast-check';
import { ConflictError } from '../../../shared/domain/errors.js';
import type { AccountId, Balance } from '../../../shared/domain/ledger.js';
import { applyLines, creditEntry, isPlatformAccount, linesOf, MAIN, ZERO_BALANCE } from '../../../shared/domain/ledger.js';
import type { Decimal } from '../../../shared/domain/money.js';
import { add, isZero, sub, sum } from '../../../shared/domain/money.js';
import type { WithdrawalChange, WithdrawalFact, WithdrawalState, WithdrawalStatus } from '../../../shared/domain/withdrawals.js';
import {
  canCancel,
  canDispatch,
  canReview,
  canSettle,
  isFinal,
  openWithdrawal,
  transition,
  WITHDRAWAL_STATUSES,
  workQueueOf,
} from '../../../shared/domain/withdrawals.js';

/**
 * The withdrawal lifecycle as a state machine: from any reachable state, a fact the guards allow moves it (and the
 * invariants hold), a fact they forbid is a ConflictError `invalid_state` and changes nothing.
 */

const T0 = new Date('2026-01-01T00:00:00.000Z');
type FactKind = WithdrawalFact['kind'];
const FACT_KINDS: readonly FactKind[] = ['dispatched', 'chain_confirmed', 'chain_failed', 'cancel', 'review_approved', 'review_rejected'];

/** Which facts each status takes (a withdrawal no policy held for review): a change of a guard must change this table too. */
const ALLOWED: Readonly<Record<WithdrawalStatus, readonly FactKind[]>> = {
  pending: ['dispatched', 'chain_confirmed', 'chain_failed', 'cancel'],
  processing: ['chain_confirmed', 'chain_failed'],
  completed: [],
  failed: [],
  cancelled: [],
  rejected: [],
};

/** What the guards say of a fact, by name. */
function guardAllows(w: WithdrawalState, fact: WithdrawalFact): boolean {
  switch (fact.kind) {
    case 'dispatched':
      return canDispatch(w);
    case 'chain_confirmed':
    case 'chain_failed':
      return canSettle(w);
    case 'cancel':
      return canCancel(w);
    case 'review_approved':
    case 'review_rejected':
      return canReview(w);
  }
}

function factOf(kind: FactKind, n = 0): WithdrawalFact {
  switch (kind) {
    case 'chain_confirmed':
      return { kind, txHash: `0x${n.toString(16).padStart(64, '0')}` };
    case 'chain_failed':
      return { kind, reason: `failure ${n}` };
    case 'review_approved':
      return { kind, by: 'operator' };
    case 'review_rejected':
      return { kind, by: 'operator', note: `note ${n}` };
    default:
      return { kind };
  }
}

/** A decimal with two places from a count of cents. */
const cents = (n: number): Decimal => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;

const opened = (amount: Decimal, networkFee: Decimal, platformFee: Decimal, accountId: string | null): WithdrawalChange => {
  const totalFee = add(networkFee, platformFee);
  return openWithdrawal(
    {
      id: 'w-1',
      tenantId: 't1',
      currency: 'USDTERC20',
      network: 'ETH',
      token: 'USDT',
      amount,
      networkFee,
      platformFee,
      totalFee,
      totalDeducted: add(amount, totalFee),
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      customId: null,
      callbackUrl: null,
      accountId,
      priceAmount: null,
      priceCurrency: null,
    },
    T0,
  );
};

/** The repository's part: version 1 when created, +1 on every save. */
const stored = (change: WithdrawalChange, previous: WithdrawalState | null): WithdrawalState => ({
  ...change.state,
  version: previous === null ? 1 : previous.version + 1,
});

const withdrawalArb = fc.record({
  amount: fc.integer({ min: 1, max: 10_000_000 }).map(cents),
  networkFee: fc.integer({ min: 0, max: 1_000 }).map(cents),
  platformFee: fc.integer({ min: 0, max: 10_000 }).map(cents),
  wallet: fc.boolean(),
});

const stepsArb = fc.array(fc.record({ kind: fc.constantFrom(...FACT_KINDS), n: fc.nat(1000), minutes: fc.nat(120) }), { maxLength: 12 });

describe('withdrawal lifecycle (property)', () => {
  it('the allowed (status, fact) pairs are exactly these', () => {
    const base = stored(opened('100', '3', '1', null), null);
    for (const status of WITHDRAWAL_STATUSES) {
      for (const kind of FACT_KINDS) {
        const w: WithdrawalState = { ...base, status };
        const allowed = ALLOWED[status].includes(kind);
        expect([status, kind, guardAllows(w, factOf(kind))]).toEqual([status, kind, allowed]);
        if (allowed) {
          expect(transition(w, factOf(kind), T0).state.status).not.toBe(status);
        } else {
          expect(() => transition(w, factOf(kind), T0)).toThrow(ConflictError);
        }
      }
      // Final states take nothing; the others are in exactly one work queue.
      expect([status, ALLOWED[status].length === 0]).toEqual([status, isFinal({ status })]);
      expect([status, workQueueOf({ status })]).toEqual([status, status === 'pending' || status === 'processing' ? status : null]);
    }
  });

  it('from any reachable state: allowed facts move it with the invariants, forbidden ones are invalid_state', () => {
    fc.assert(
      fc.property(withdrawalArb, stepsArb, (draft, steps) => {
        const source: AccountId = draft.wallet ? 'wallet:w9' : MAIN;
        const open = opened(draft.amount, draft.networkFee, draft.platformFee, draft.wallet ? 'w9' : null);
        let w = stored(open, null);
        const funds = add(w.totalDeducted, '5');
        // Balances as the ledger keeps them: funded, then every entry the changes carry.
        const balances = new Map<AccountId, Balance>();
        const get = (a: AccountId): Balance => balances.get(a) ?? ZERO_BALANCE;
        const post = (change: WithdrawalChange) => {
          for (const effect of change.effects) {
            if (effect.kind !== 'post_entry') continue;
            const lines = linesOf(effect.entry);
            expect(isZero(sum(lines.map((l) => l.delta)))).toBe(true); // every entry balances
            for (const [account, balance] of applyLines(get, effect.entry.currency, lines)) balances.set(account, balance);
          }
        };
        post({
          state: w,
          events: [],
          effects: [
            {
              kind: 'post_entry',
              entryId: 'funding',
              entry: creditEntry({ account: source, type: 'adjustment', currency: 'USDTERC20', amount: funds, reason: 'funding' }),
            },
          ],
        });
        post(open);
        const keys = new Set(open.events.map((e) => e.key));
        expect(keys.size).toBe(open.events.length);
        let at = T0.getTime();

        for (const step of steps) {
          at += step.minutes * 60_000;
          const now = new Date(at);
          const fact = factOf(step.kind, step.n);
          const before = w;
          if (!guardAllows(before, fact)) {
            const refuse = () => transition(before, fact, now);
            expect(refuse).toThrow(ConflictError);
            expect(refuse).toThrow(expect.objectContaining({ code: 'invalid_state', details: { status: before.status, action: fact.kind } }));
            continue;
          }
          const change = transition(before, fact, now);
          expect(isFinal(before)).toBe(false);
          // The domain leaves the version to the repository, and never rewrites what the withdrawal is.
          expect(change.state.version).toBe(before.version);
          expect({
            ...change.state,
            status: before.status,
            transactionHash: before.transactionHash,
            failureReason: before.failureReason,
            updatedAt: before.updatedAt,
          }).toEqual(before);
          expect(change.state.updatedAt).toBe(now.toISOString());
          // Status events: one status update and its family event, keyed once per withdrawal.
          expect(change.events.map((e) => e.payload.status)).toEqual(change.events.map(() => change.state.status));
          for (const e of change.events) {
            expect(keys.has(e.key)).toBe(false);
            keys.add(e.key);
          }
          expect(change.events.every((e) => e.payload.previous_status === before.status)).toBe(true);
          // At most one ledger entry, under the withdrawal's natural id.
          const entries = change.effects.filter((e) => e.kind === 'post_entry');
          expect(entries.length).toBeLessThanOrEqual(1);
          for (const e of entries) expect(e.kind === 'post_entry' && e.entryId.startsWith(`withdrawal:${before.id}:`)).toBe(true);
          post(change);
          w = stored(change, before);
        }

        // Money is never created: held while open, paid out exactly once when completed, returned otherwise.
        const src = get(source);
        const platform = [...balances.entries()].filter(([a]) => isPlatformAccount(a)).reduce((s, [, b]) => add(s, b.amount), '0');
        expect(src.pending).toBe('0');
        if (w.status === 'pending' || w.status === 'processing') {
          expect([src.amount, src.locked]).toEqual([sub(funds, w.totalDeducted), w.totalDeducted]);
          expect(platform).toBe('0');
        } else if (w.status === 'completed') {
          expect([src.amount, src.locked]).toEqual([sub(funds, w.totalDeducted), '0']);
          expect(platform).toBe(add(w.networkFee, w.platformFee));
        } else {
          expect([src.amount, src.locked]).toEqual([funds, '0']);
          expect(platform).toBe('0');
        }
      }),
      { numRuns: 300 },
    );
  });
});
