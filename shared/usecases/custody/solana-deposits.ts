import type { Clock } from '../../domain/clock.js';
import { findCurrency } from '../../domain/currencies.js';
import type { CustodyAddressState, CustodyDepositState } from '../../domain/custody.js';
import { custodyCurrency, depositTransition, isConfirmingDeposit, isCreditedDeposit, openDeposit } from '../../domain/custody.js';
import { ConflictError } from '../../domain/errors.js';
import { fromBaseUnits } from '../../domain/money.js';
import { errorField, logger } from '../../observability/logger.js';
import type { AddressDepositSource, AddressTransfer } from '../deposits/ports.js';
import type { CustodyAddressRepository, CustodyDepositRepository } from './ports.js';

/**
 * Custody deposits on Solana. A Solana block carries thousands of transactions, so there is no cheap scan of
 * "every transfer to my addresses" as on EVM and TRON; custody has few SOL addresses, each long-lived, so each
 * one's USDT history is polled instead, through the AddressDepositSource port (shared/usecases/deposits/ports.ts;
 * its Solana adapter: shared/chain/solana/deposit-source.ts), from the cursor stored on its address item
 * (`historyCursor`: only ever past finalized signatures).
 *
 * Cost per address and poll: one `getSignaturesForAddress` (more only past 1,000 new signatures), plus one
 * `getTransaction` per new signature of the token account (each transfer is read again on every poll until it is
 * finalized, about 13 s), plus one `getSlot` per poll of all addresses.
 *
 * Each incoming transfer is a custody deposit of the same aggregate as on EVM and TRON (`SOL:<signature>:<index of
 * the token account in the transaction>`), recorded `confirming` when first seen and credited once its transaction
 * is finalized (rooted: it can no longer be rolled back). The funds stay at the account's own address (the address
 * is the account's key), so a Solana deposit is `heldAtAddress`: credited is its end, nothing is swept. Every write
 * is idempotent (the natural id, versioned saves), so the poller (./solana-poller.ts) and sync may run side by side.
 */

export interface SolanaDepositDeps {
  readonly addresses: Pick<CustodyAddressRepository, 'watched' | 'moveCursor'>;
  readonly deposits: CustodyDepositRepository;
  /** The SOL addresses' histories. */
  readonly solana: AddressDepositSource;
  readonly clock: Clock;
}

/** What one poll of an address read, before anything is written. */
export interface SolanaAddressRead {
  readonly address: CustodyAddressState;
  /** Newest reading of each transaction, oldest first. */
  readonly transfers: readonly AddressTransfer[];
  /** The cursor to store once they are recorded (undefined: none yet). */
  readonly cursor: string | undefined;
  /** The node's confirmed slot when read (confirmations of what is not final yet). */
  readonly slot: number;
}

export interface SolanaPollResult {
  /** Deposits recorded for the first time. */
  readonly recorded: number;
  /** Deposits credited by this poll. */
  readonly credited: number;
}

const CURRENCY = custodyCurrency('SOL');
/** Reads of an address's history per poll (each up to 100 transactions). */
const MAX_ROUNDS = 10;

/** Reads an address's new incoming USDT transfers since its cursor (no writes). */
export async function readSolanaAddress(address: CustodyAddressState, deps: Pick<SolanaDepositDeps, 'solana'>, slot?: number): Promise<SolanaAddressRead> {
  const head = slot ?? (await deps.solana.head());
  const bySignature = new Map<string, AddressTransfer>();
  let since = address.historyCursor;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const listed = await deps.solana.incoming(address.address, since);
    for (const t of listed.transfers) bySignature.set(t.txHash, t);
    const advanced = listed.cursor !== since;
    since = listed.cursor;
    if (!listed.more || !advanced) break;
  }
  const transfers = [...bySignature.values()].sort((a, b) => a.blockNumber - b.blockNumber);
  return { address, transfers, cursor: since, slot: head };
}

/** Records the read transfers, credits the finalized ones, then moves the address's cursor. */
export async function applySolanaRead(read: SolanaAddressRead, deps: Pick<SolanaDepositDeps, 'addresses' | 'deposits'>, now: Date): Promise<SolanaPollResult> {
  const currency = CURRENCY ? findCurrency(CURRENCY) : undefined;
  if (!CURRENCY || !currency) throw new Error('USDTSOL is not in the catalogue');
  // Credited at finality only, whatever a deployment's confirmation override says: the catalogue's count stands for it.
  const needed = currency.confirmations;
  const { address } = read;
  let recorded = 0;
  let credited = 0;
  for (const t of read.transfers) {
    if (t.index < 0) continue;
    const confirmations = t.final ? needed : Math.min(needed - 1, Math.max(t.voted ? 1 : 0, read.slot - t.blockNumber + 1));
    const change = openDeposit(
      {
        tenantId: address.tenantId,
        accountId: address.accountId,
        depositId: `SOL:${t.txHash}:${t.index}`,
        blockchain: 'SOL',
        network: 'SOL',
        currency: CURRENCY,
        amount: fromBaseUnits(t.amount, currency.decimals),
        address: address.address,
        txHash: t.txHash,
        blockNumber: t.blockNumber,
        // Solana deposits are followed by commitment (finalized or not), not by re-checking a block hash.
        blockHash: '',
        confirmations: 0,
        heldAtAddress: true,
      },
      now,
    );
    if (await deps.deposits.record(change, now)) recorded++;
    if (await confirm(address.tenantId, change.state.depositId, confirmations, needed, deps, now)) credited++;
  }
  // A cursor moved meanwhile (a concurrent poll or sync) covered the same transfers: nothing to do.
  if (read.cursor !== undefined && read.cursor !== address.historyCursor) await deps.addresses.moveCursor(address, read.cursor);
  return { recorded, credited };
}

/** Counts a confirming deposit's confirmations (credited at `needed`), retrying a concurrent change; true when this call credited it. */
async function confirm(
  tenantId: string,
  depositId: string,
  confirmations: number,
  needed: number,
  deps: Pick<SolanaDepositDeps, 'deposits'>,
  now: Date,
): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const d: CustodyDepositState | null = await deps.deposits.get(tenantId, depositId);
    if (!d || !isConfirmingDeposit(d) || confirmations <= d.confirmations) return false;
    try {
      const saved = await deps.deposits.save(d, depositTransition(d, { kind: 'confirmations', confirmations, needed }, now), now);
      return isCreditedDeposit(saved);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  throw new ConflictError(`Custody deposit ${depositId} kept changing meanwhile.`);
}

/** One poll of one address: read, then record and credit. */
export async function pollSolanaAddress(address: CustodyAddressState, deps: SolanaDepositDeps, slot?: number): Promise<SolanaPollResult> {
  const read = await readSolanaAddress(address, deps, slot);
  return applySolanaRead(read, deps, deps.clock.now());
}

/**
 * One pass over every custody SOL address, a few at a time; an address whose poll fails is logged and polled
 * again next pass (its cursor did not move).
 */
export async function pollSolanaDeposits(
  deps: SolanaDepositDeps,
  options: { readonly concurrency?: number } = {},
): Promise<SolanaPollResult & { addresses: number; failed: number }> {
  const addresses = [...(await deps.addresses.watched('SOL'))];
  const slot = await deps.solana.head();
  let recorded = 0;
  let credited = 0;
  let failed = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < addresses.length) {
      const address = addresses[next++] as CustodyAddressState;
      try {
        const r = await pollSolanaAddress(address, deps, slot);
        recorded += r.recorded;
        credited += r.credited;
      } catch (error) {
        failed++;
        logger.error('custody solana poll failed', { tenant_id: address.tenantId, account_id: address.accountId, error: errorField(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, addresses.length)) }, worker));
  return { addresses: addresses.length, recorded, credited, failed };
}
