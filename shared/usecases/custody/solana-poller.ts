import { randomUUID } from 'node:crypto';
import { errorField, logger } from '../../observability/logger.js';
import type { SolanaDepositDeps } from './solana-deposits.js';
import { pollSolanaDeposits } from './solana-deposits.js';
import type { SolanaWithdrawalDeps } from './solana-withdrawals.js';
import { sendSolanaWithdrawals } from './solana-withdrawals.js';

/**
 * The custody-solana worker's loop (deposits: ./solana-deposits.ts; withdrawals: ./solana-withdrawals.ts). Apart
 * from the deposit reads, which custody sync (an API route) also makes, so the API bundles no withdrawal sender.
 */

export interface SolanaPollerDeps extends SolanaDepositDeps {
  /** The scanners' lease (one poller at a time; the lease named `SOL`). */
  readonly lease: {
    acquireLease(network: string, owner: string, now: Date, until: Date): Promise<boolean>;
    releaseLease(network: string, owner: string): Promise<void>;
  };
  /** Custody's SOL withdrawals, sent after each poll; null where no fee payer is configured (none is then accepted). */
  readonly withdrawals?: SolanaWithdrawalDeps | null;
}

/**
 * The custody-solana worker's loop, like the chain scanner's: hold the `SOL` lease and poll every address again
 * and again for most of the invocation (EventBridge fires at most once a minute), `pauseMs` between passes; each
 * pass then signs, sends and follows custody's SOL withdrawals (./solana-withdrawals.ts), under the same lease.
 * With no custody SOL address and no SOL withdrawal queued, the run is one pass (two queries), not a loop: an
 * address or a withdrawal made meanwhile is taken up by the next run, a minute at most.
 */
export async function runSolanaPoller(
  options: { readonly budgetMs: number; readonly pauseMs: number; readonly concurrency?: number },
  deps: SolanaPollerDeps,
): Promise<{ passes: number; recorded: number; credited: number }> {
  const owner = randomUUID();
  const started = deps.clock.now().getTime();
  const elapsed = () => deps.clock.now().getTime() - started;
  const now = deps.clock.now();
  if (!(await deps.lease.acquireLease('SOL', owner, now, new Date(now.getTime() + options.budgetMs + 30_000)))) return { passes: 0, recorded: 0, credited: 0 };
  let passes = 0;
  let recorded = 0;
  let credited = 0;
  try {
    do {
      const r = await pollSolanaDeposits(deps, options.concurrency === undefined ? {} : { concurrency: options.concurrency });
      passes++;
      recorded += r.recorded;
      credited += r.credited;
      // Withdrawals to send or follow: asked with one single-item query when no address is polled anyway.
      const withdrawing = deps.withdrawals ? r.addresses > 0 || (await deps.withdrawals.withdrawals.queued('solana', 1)).length > 0 : false;
      if (deps.withdrawals && withdrawing) {
        await sendSolanaWithdrawals(deps.withdrawals).catch((error: unknown) =>
          logger.error('custody solana withdrawals pass failed', { error: errorField(error) }),
        );
      }
      // Nothing to poll and nothing to send: one pass for this run, not a loop.
      if (r.addresses === 0 && !withdrawing) break;
      if (elapsed() + options.pauseMs >= options.budgetMs) break;
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    } while (elapsed() < options.budgetMs);
  } finally {
    await deps.lease.releaseLease('SOL', owner);
  }
  return { passes, recorded, credited };
}
