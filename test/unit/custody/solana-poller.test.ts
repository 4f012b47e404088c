import { runSolanaPoller } from '../../../shared/usecases/custody/solana-poller.js';
import type { SolanaPollerDeps } from '../../../shared/usecases/custody/solana-poller.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';

/**
 * custody-solana's loop with nothing to poll: no custody SOL address and no SOL withdrawal queued. One pass (the
 * address list, the slot, one single-item withdrawal query), then out, whatever budget is left; with a withdrawal
 * queued it loops as before. The clock never moves: only the idle check can end the loop early.
 */
function deps(queued: number[]): { deps: SolanaPollerDeps; calls: string[] } {
  const calls: string[] = [];
  const unexpected = (name: string) => (): never => {
    throw new Error(`unexpected call: ${name}`);
  };
  const now = new Date('2026-01-01T00:00:00.000Z');
  const d = {
    clock: { now: () => now },
    lease: {
      acquireLease: async () => (calls.push('acquireLease'), true),
      releaseLease: async () => void calls.push('releaseLease'),
    },
    addresses: { watched: async () => (calls.push('watched'), []), moveCursor: unexpected('moveCursor') },
    deposits: {},
    solana: { head: async () => (calls.push('head'), 1_000), incoming: unexpected('incoming') },
    withdrawals: {
      withdrawals: {
        queued: async (_queue: string, limit: number) => {
          calls.push(`queued ${limit}`);
          return Array.from({ length: queued.shift() ?? 0 }, () => ({}) as WithdrawalState).slice(0, limit);
        },
      },
    },
  } as unknown as SolanaPollerDeps;
  return { deps: d, calls };
}

describe('runSolanaPoller, idle', () => {
  it('nothing to poll or send: one pass and out, three reads and the lease', async () => {
    const { deps: d, calls } = deps([]);
    expect(await runSolanaPoller({ budgetMs: 60_000, pauseMs: 0 }, d)).toEqual({ passes: 1, recorded: 0, credited: 0 });
    expect(calls).toEqual(['acquireLease', 'watched', 'head', 'queued 1', 'releaseLease']);
  });

  it('a SOL withdrawal queued keeps it looping (and sending) until none is left', async () => {
    // Queued on the first two checks; each check is followed by a send pass (which lists up to 100).
    const { deps: d, calls } = deps([1, 0, 1, 0]);
    const result = await runSolanaPoller({ budgetMs: 60_000, pauseMs: 0 }, d);
    expect(result.passes).toBe(3);
    expect(calls.filter((c) => c === 'queued 1')).toHaveLength(3);
    expect(calls.filter((c) => c === 'queued 100')).toHaveLength(2);
  });
});
