import type { Clock } from '../../domain/clock.js';
import { findCurrency } from '../../domain/currencies.js';
import { toBaseUnits } from '../../domain/money.js';
import type { SolanaWithdrawalAttempt, WithdrawalState } from '../../domain/withdrawals.js';
import { canCancel, canDispatch, canSettle, recordSolanaAttempt } from '../../domain/withdrawals.js';
import { errorField, logger } from '../../observability/logger.js';
import type { WithdrawalRepository } from '../withdrawals/ports.js';
import { settleWithdrawal } from '../withdrawals/settle.js';
import type { CustodyAddressRepository, SolanaTransferPort } from './ports.js';

/**
 * Custody withdrawals on Solana, sent by the custody-solana worker under the `SOL` lease (the batcher leaves them
 * alone: they are in the `solana` work queue). A custody account's SOL USDT stays at its own address, so the
 * transfer is signed from that address with its key (`keyId`), the platform's fee payer paying the fees, through
 * the `SolanaTransferPort` (ports.ts; adapter: shared/chain/solana/transfers.ts).
 *
 * Persist before broadcast, like the chain-tx engine: each signed transaction (signature, lastValidBlockHeight, wire
 * bytes) is saved on the withdrawal, conditioned on the version read, in the transaction that moves it `pending` ->
 * `processing` (the first) or beside the earlier ones (later ones), and only then sent. Each later pass judges every
 * attempt (the port's `fate`): one landed and finalized settles the withdrawal (succeeded: completed, the payout
 * posted; failed: failed, the hold returned); none landed but one still may: the same bytes are sent again; none
 * can ever land (a finalized block past every attempt's lastValidBlockHeight, none with a status): a new attempt is
 * signed with a fresh blockhash, as TRON re-signs past expiry. So at most one transfer ever executes.
 */

export interface SolanaWithdrawalDeps {
  readonly withdrawals: WithdrawalRepository;
  readonly addresses: Pick<CustodyAddressRepository, 'get'>;
  /** USDT transfers from custody SOL addresses: balances, signing, sending, the attempts' fate. */
  readonly solana: SolanaTransferPort;
  readonly clock: Clock;
}

export interface SolanaWithdrawalReport {
  /** Transactions signed and persisted (first attempts and re-signs after expiry). */
  readonly signed: number;
  /** Attempts sent again (none landed yet, one still may). */
  readonly resent: number;
  readonly completed: number;
  readonly failed: number;
}

/** At most this many Solana withdrawals are looked at per pass, oldest first. */
const PASS_LIMIT = 100;

type Outcome = keyof SolanaWithdrawalReport | 'waiting';

/** One pass over the `solana` work queue: pending ones signed and sent, processing ones followed. */
export async function sendSolanaWithdrawals(deps: SolanaWithdrawalDeps, limit = PASS_LIMIT): Promise<SolanaWithdrawalReport> {
  const report = { signed: 0, resent: 0, completed: 0, failed: 0 };
  for (const w of await deps.withdrawals.queued('solana', limit)) {
    try {
      const outcome = await advance(w, deps);
      if (outcome !== 'waiting') report[outcome] += 1;
    } catch (error) {
      // Whatever failed is tried again next pass from what is persisted.
      logger.error('custody solana withdrawal failed', { tenant_id: w.tenantId, withdrawal_id: w.id, error: errorField(error) });
    }
  }
  return report;
}

async function advance(w: WithdrawalState, deps: SolanaWithdrawalDeps): Promise<Outcome> {
  const attempts = w.solanaAttempts ?? [];
  // Pending (nothing sent yet, so it may still be cancelled): sent once it may be dispatched (reviewed when due).
  if (canCancel(w)) return canDispatch(w) ? signAndSend(w, deps) : 'waiting';
  // Neither pending nor processing: settled already.
  if (!canSettle(w)) return 'waiting';
  if (attempts.length === 0) return signAndSend(w, deps);
  const fate = await deps.solana.fate(attempts);
  switch (fate.kind) {
    case 'landed': {
      // Only a rooted result is final: a confirmed one could still be rolled back (and land again elsewhere).
      if (!fate.final) return 'waiting';
      const now = deps.clock.now();
      if (fate.error === null) {
        await settleWithdrawal(w, { ok: true, txHash: fate.signature }, now, deps);
        return 'completed';
      }
      await settleWithdrawal(w, { ok: false, reason: `transaction ${fate.signature} failed on chain: ${fate.error}` }, now, deps);
      return 'failed';
    }
    case 'pending': {
      // Only the newest may still land (a new attempt is signed only once every earlier one cannot).
      await send(w, attempts[attempts.length - 1] as SolanaWithdrawalAttempt, deps);
      return 'resent';
    }
    case 'expired':
      return signAndSend(w, deps);
  }
}

/** Signs a new attempt, persists it (moving a pending withdrawal to processing), then sends it. */
async function signAndSend(w: WithdrawalState, deps: SolanaWithdrawalDeps): Promise<Outcome> {
  const currency = findCurrency(w.currency);
  if (!currency || currency.family !== 'sol') throw new Error(`${w.currency} is not sent on Solana`);
  if (!w.custodyAccountId) throw new Error('Only custody withdrawals are sent on Solana: their funds are at the account address');
  const address = await deps.addresses.get(w.tenantId, w.custodyAccountId, 'SOL');
  if (!address?.keyId) throw new Error(`The custody account ${w.custodyAccountId} has no SOL address with a key`);
  const units = toBaseUnits(w.amount, currency.decimals);
  // Nothing of this withdrawal can land any more (none signed, or every attempt expired): if the address cannot
  // cover it, failing now returns the hold and sends nothing.
  const held = await deps.solana.tokenBalance(address.address);
  if (held < units) {
    await settleWithdrawal(w, { ok: false, reason: `the account's SOL address holds ${held} base units of USDT, ${units} needed` }, deps.clock.now(), deps);
    return 'failed';
  }
  const signed = await deps.solana.signTransfer({
    owner: address.address,
    keyId: address.keyId,
    recipient: w.address,
    amount: units,
    decimals: currency.decimals,
  });
  const now = deps.clock.now();
  const attempt: SolanaWithdrawalAttempt = {
    signature: signed.signature,
    lastValidBlockHeight: signed.lastValidBlockHeight,
    wire: signed.wire,
    signedAt: now.toISOString(),
  };
  // Persisted before it is sent, conditioned on the version read: a withdrawal cancelled meanwhile refuses it.
  const saved = await deps.withdrawals.save(w, recordSolanaAttempt(w, attempt, now), now);
  await send(saved, attempt, deps);
  return 'signed';
}

/** Sends an attempt's bytes; a failed send is logged, the next pass judges the attempt again. */
async function send(w: WithdrawalState, attempt: SolanaWithdrawalAttempt, deps: Pick<SolanaWithdrawalDeps, 'solana'>): Promise<void> {
  try {
    // `stale`: its blockhash is already too old for this node; it will expire, and be signed anew.
    await deps.solana.send(attempt.wire);
  } catch (error) {
    logger.error('custody solana withdrawal send failed', {
      tenant_id: w.tenantId,
      withdrawal_id: w.id,
      signature: attempt.signature,
      error: errorField(error),
    });
  }
}
