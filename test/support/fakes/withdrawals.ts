import type { ChainTxAnnouncement, ChainTxStorePort } from '../../../shared/usecases/chain-tx/ports.js';
import type { ChainTx, ChainTxChange } from '../../../shared/domain/chain-tx.js';
import { isOpen } from '../../../shared/domain/chain-tx.js';
import type { ServedNetworks } from '../../../shared/domain/currencies.js';
import { findCurrency } from '../../../shared/domain/currencies.js';
import { ConflictError, DailyLimitError } from '../../../shared/domain/errors.js';
import { add, gt, lt } from '../../../shared/domain/money.js';
import { networkFeeTable } from '../../../shared/domain/withdrawal-fees.js';
import type { WithdrawalChange, WithdrawalEvent, WithdrawalQueue, WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { workQueueOf } from '../../../shared/domain/withdrawals.js';
import type { LogFields } from '../../../shared/observability/logger.js';
import type { WriteItem } from '../../../shared/usecases/ports.js';
import type {
  BatcherDeps,
  WithdrawalCreation,
  WithdrawalListOrder,
  WithdrawalRepository,
  WithdrawalsDeps,
} from '../../../shared/usecases/withdrawals/ports.js';
import { payoutCalls } from '../../../shared/chain/evm/batch-payout.js';
import { VirtualClock } from '../clock.js';
import { InMemoryLedger } from './ledger.js';
import { CHAIN_NETWORKS, fakeTokenContract, fixedRatesDeps, serving } from './payments.js';

/**
 * The withdrawal repository in memory, with the rules of the DynamoDB one (shared/store/withdrawals.ts over
 * shared/store/aggregate.ts): a creation stores version 1 with its hold posted on the ledger, the day's total kept
 * within its limit and `alsoWrite`, all or nothing; a save is refused (ConflictError) unless the stored version is
 * the one read, posts the change's entry (a duplicate entry id is the ledger's DuplicateEntryError) and stores the
 * next version. Events and the writes handed in are recorded for assertions.
 */
export class InMemoryWithdrawals implements WithdrawalRepository {
  readonly states = new Map<string, WithdrawalState>();
  readonly events: (WithdrawalEvent & { readonly withdrawalId: string })[] = [];
  readonly alsoWritten: WriteItem[] = [];
  readonly dayTotals = new Map<string, string>();
  saves = 0;

  constructor(readonly ledger: InMemoryLedger = new InMemoryLedger()) {}

  private key = (tenantId: string, id: string) => `${tenantId}|${id}`;

  async get(tenantId: string, withdrawalId: string): Promise<WithdrawalState | null> {
    return this.states.get(this.key(tenantId, withdrawalId)) ?? null;
  }

  async create(creation: WithdrawalCreation, now: Date): Promise<WithdrawalState> {
    const w: WithdrawalState = { ...creation.change.state, version: 1 };
    const key = this.key(w.tenantId, w.id);
    if (this.states.has(key)) throw new ConflictError('The withdrawal changed meanwhile; retry.', { withdrawal_id: w.id });
    const day = `${w.tenantId}|${w.createdAt.slice(0, 10)}`;
    const limit = creation.dayTotal;
    const total = limit === null ? null : add(this.dayTotals.get(day) ?? '0', limit.amountUsd);
    if (limit !== null && total !== null && gt(total, limit.limitUsd)) throw new DailyLimitError('withdrawal', limit.limitUsd);
    const also = creation.alsoWrite?.(w) ?? [];
    // The ledger applies the hold completely or not at all (InsufficientBalanceError): nothing else is kept then.
    await this.post(w, creation.change, now);
    if (total !== null) this.dayTotals.set(day, total);
    this.states.set(key, w);
    this.alsoWritten.push(...also);
    this.record(w, creation.change);
    return w;
  }

  async save(previous: WithdrawalState, change: WithdrawalChange, now: Date): Promise<WithdrawalState> {
    const key = this.key(previous.tenantId, previous.id);
    const stored = this.states.get(key);
    if (!stored || stored.version !== previous.version) throw new ConflictError('The withdrawal changed meanwhile; retry.', { withdrawal_id: previous.id });
    await this.post(previous, change, now);
    const next: WithdrawalState = { ...change.state, version: previous.version + 1 };
    this.states.set(key, next);
    this.record(next, change);
    this.saves++;
    return next;
  }

  async list(tenantId: string, order: WithdrawalListOrder): Promise<WithdrawalState[]> {
    const sign = order.ascending ? 1 : -1;
    const mine = [...this.states.values()].filter((w) => w.tenantId === tenantId);
    if (order.by === 'amount') {
      // gsi2: every withdrawal of the tenant by amount, then id; the bounds are the caller's to apply.
      return mine.sort((a, b) => sign * (lt(a.amount, b.amount) ? -1 : gt(a.amount, b.amount) ? 1 : a.id.localeCompare(b.id)));
    }
    // gsi1: `<created_at>#<id>` between the bounds (a missing bound is open).
    const from = order.from ?? '0000';
    const to = `${order.to ?? '9999'}~`;
    return mine
      .filter((w) => `${w.createdAt}#${w.id}` >= from && `${w.createdAt}#${w.id}` <= to)
      .sort((a, b) => sign * `${a.createdAt}#${a.id}`.localeCompare(`${b.createdAt}#${b.id}`));
  }

  async queued(queue: WithdrawalQueue, limit: number): Promise<WithdrawalState[]> {
    // gsi3: one partition per queue, `<created_at>#<tenant>#<id>` ascending (oldest first, every tenant).
    const sortKey = (w: WithdrawalState) => `${w.createdAt}#${w.tenantId}#${w.id}`;
    return [...this.states.values()]
      .filter((w) => workQueueOf(w) === queue)
      .sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
      .slice(0, limit);
  }

  /** The entry a change carries (hold, payout, return), posted under its natural id. */
  private async post(w: WithdrawalState, change: WithdrawalChange, now: Date): Promise<void> {
    const entry = change.effects.find((e) => e.kind === 'post_entry');
    if (entry?.kind === 'post_entry') await this.ledger.post({ tenantId: w.tenantId, entryId: entry.entryId, entry: entry.entry, now });
  }

  private record(w: WithdrawalState, change: WithdrawalChange): void {
    this.events.push(...change.events.map((e) => ({ ...e, withdrawalId: w.id })));
  }
}

/** Chain-transaction requests in memory: `create` once per request id (recorded with its announcement), reads, saves. */
export class InMemoryChainTxs implements ChainTxStorePort {
  readonly txs = new Map<string, ChainTx>();
  readonly created: { readonly tx: ChainTx; readonly announce: ChainTxAnnouncement | undefined }[] = [];

  async get(requestId: string): Promise<ChainTx | undefined> {
    return this.txs.get(requestId);
  }

  async create(tx: ChainTx, announce?: ChainTxAnnouncement): Promise<ChainTx | null> {
    if (this.txs.has(tx.requestId)) return null;
    const stored = { ...tx, version: 1 };
    this.txs.set(tx.requestId, stored);
    this.created.push({ tx, announce });
    return stored;
  }

  async save(previous: ChainTx, change: ChainTxChange): Promise<ChainTx> {
    const stored = this.txs.get(previous.requestId);
    if (!stored || stored.version !== previous.version) throw new ConflictError(`Chain transaction ${previous.requestId} changed meanwhile.`);
    const next = { ...change.state, version: previous.version + 1 };
    this.txs.set(next.requestId, next);
    return next;
  }

  async allocateNonce(): Promise<ChainTx> {
    throw new Error('The in-memory chain-tx store allocates no nonces: the engine is not under test here.');
  }

  async listOpen(network: string, limit = 100): Promise<ChainTx[]> {
    return [...this.txs.values()].filter((t) => t.network === network && isOpen(t)).slice(0, limit);
  }

  async acquireLease(): Promise<boolean> {
    return true;
  }

  async releaseLease(): Promise<void> {}

  async leaseHeld(): Promise<boolean> {
    return false;
  }
}

/** Errors the batcher reported, for assertions. */
export class RecordingLog {
  readonly errors: { readonly message: string; readonly fields: LogFields | undefined }[] = [];

  error(message: string, fields?: LogFields): void {
    this.errors.push({ message, fields });
  }
}

/** The hot wallet of every network in the fakes. */
export const FAKE_WALLET = { keyId: 'key-1', address: '0x1111111111111111111111111111111111111111' } as const;

export interface FakeWithdrawals extends WithdrawalsDeps, BatcherDeps {
  readonly withdrawals: InMemoryWithdrawals;
  readonly ledger: InMemoryLedger;
  readonly chainTxs: InMemoryChainTxs;
  readonly clock: VirtualClock;
  readonly log: RecordingLog;
}

/**
 * Withdrawal deps with every port in memory, and what the batcher needs besides: the default network fees, fixed
 * rates, the hot wallet `FAKE_WALLET`, the fakes' token contracts, the real call-data encoders (`payoutCalls`: pure), a virtual clock, stage `test` (the staging
 * addresses settle by themselves) and every network with a chain adapter served unless told.
 */
export function fakeWithdrawals(
  options: { readonly clock?: VirtualClock; readonly stage?: string; readonly ledger?: InMemoryLedger; readonly served?: ServedNetworks } = {},
): FakeWithdrawals {
  const clock = options.clock ?? new VirtualClock();
  const ledger = options.ledger ?? new InMemoryLedger();
  const chainTxs = new InMemoryChainTxs();
  return {
    withdrawals: new InMemoryWithdrawals(ledger),
    ledger,
    rates: fixedRatesDeps(clock),
    fees: { networkFees: networkFeeTable() },
    chainTxs,
    settings: { allowLoopbackCallbacks: true, stage: options.stage ?? 'test' },
    clock,
    served: options.served ?? serving(CHAIN_NETWORKS),
    wallet: async () => FAKE_WALLET,
    chainTx: { store: chainTxs, clock: () => clock.now() },
    tokenContract: (code) => {
      const currency = findCurrency(code);
      return currency ? fakeTokenContract(currency) : null;
    },
    log: new RecordingLog(),
    calls: payoutCalls,
  };
}
