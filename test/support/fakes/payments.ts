import type { CurrencyCode, CurrencyDefinition, NetworkCode, ServedNetworks } from '../../../shared/domain/currencies.js';
import { CURRENCY_LIST, NETWORK_CODES } from '../../../shared/domain/currencies.js';
import { ConflictError, DailyLimitError } from '../../../shared/domain/errors.js';
import { add, gt, lt, sub } from '../../../shared/domain/money.js';
import type { PaymentChange, PaymentState } from '../../../shared/domain/payments.js';
import { DepositAlreadyRecordedError, workQueueOf } from '../../../shared/domain/payments.js';
import type { Clock } from '../../../shared/domain/clock.js';
import type { StoredRates } from '../../../shared/domain/rates.js';
import type { RatesDeps } from '../../../shared/usecases/rates/ports.js';
import { InMemoryLedger } from './ledger.js';
import type { WriteItem } from '../../../shared/usecases/ports.js';
import type { AddressMatch, PaymentCreation, PaymentFilter, PaymentQuery, PaymentRepository, PaymentsDeps } from '../../../shared/usecases/payments/ports.js';
import type { ScanCursor, ScanCursorStore } from '../../../shared/usecases/scanner/ports.js';
import type { ScannerDeps } from '../../../shared/usecases/scanner/scan.js';
import { VirtualClock } from '../clock.js';

/**
 * The payment repository in memory, with the rules of the DynamoDB one: a save is refused (ConflictError) unless
 * the stored version is the one read; a deposit is recorded once (DepositAlreadyRecordedError); the merchant's
 * ledger entry and the state commit together or not at all; the day's total stays within the daily limit.
 * Events and the writes other ports hand in are recorded for assertions.
 */
export class InMemoryPayments implements PaymentRepository {
  readonly states = new Map<string, PaymentState>();
  readonly deposits = new Set<string>();
  readonly addresses = new Map<string, AddressMatch>();
  readonly events: { paymentId: string; type: string; key: string; payload: Readonly<Record<string, unknown>> }[] = [];
  readonly alsoWritten: WriteItem[] = [];
  readonly dayTotals = new Map<string, string>();
  saves = 0;
  /** Reads of one payment by key (the scanner settles from the copies it holds). */
  gets = 0;

  constructor(readonly ledger: InMemoryLedger = new InMemoryLedger()) {}

  private key = (tenantId: string, id: string) => `${tenantId}|${id}`;

  async get(tenantId: string, paymentId: string): Promise<PaymentState | null> {
    this.gets++;
    return this.states.get(this.key(tenantId, paymentId)) ?? null;
  }

  async create(creation: PaymentCreation, now: Date): Promise<PaymentState> {
    const p: PaymentState = { ...creation.change.state, version: 1 };
    const key = this.key(p.tenantId, p.id);
    if (this.states.has(key)) throw new ConflictError('The payment changed meanwhile; retry.', { payment_id: p.id });
    if (this.addresses.has(p.address.toLowerCase())) throw new Error(`The payment ${p.id} could not be created (its address is taken).`);
    const day = `${p.tenantId}|${p.createdAt.slice(0, 10)}`;
    const total = add(this.dayTotals.get(day) ?? '0', p.amountUsd);
    if (creation.dailyLimitUsd !== null && gt(total, creation.dailyLimitUsd)) throw new DailyLimitError('payment', creation.dailyLimitUsd);
    this.dayTotals.set(day, total);
    this.states.set(key, p);
    this.addresses.set(p.address.toLowerCase(), { address: p.address, tenantId: p.tenantId, paymentId: p.id, currency: p.currency });
    const limit = creation.dailyLimitUsd;
    if (creation.count)
      this.alsoWritten.push(creation.count.countItem(limit === null ? undefined : { amountUsd: p.amountUsd, roomUsd: sub(limit, p.amountUsd) }));
    this.alsoWritten.push(...(creation.alsoWrite?.(p) ?? []));
    this.record(p, creation.change);
    void now;
    return p;
  }

  async save(previous: PaymentState, change: PaymentChange, now: Date): Promise<PaymentState> {
    const key = this.key(previous.tenantId, previous.id);
    const stored = this.states.get(key);
    if (!stored || stored.version !== previous.version) throw new ConflictError('The payment changed meanwhile; retry.', { payment_id: previous.id });
    for (const e of change.effects) if (e.kind === 'record_deposit' && this.deposits.has(e.deposit.id)) throw new DepositAlreadyRecordedError(e.deposit.id);
    const entry = change.effects.find((e) => e.kind === 'post_entry');
    if (entry?.kind === 'post_entry') await this.ledger.post({ tenantId: previous.tenantId, entryId: entry.entryId, entry: entry.entry, now });
    for (const e of change.effects) {
      if (e.kind === 'record_deposit') this.deposits.add(e.deposit.id);
      if (e.kind === 'forget_deposits') for (const id of e.depositIds) this.deposits.delete(id);
    }
    const next: PaymentState = { ...change.state, version: previous.version + 1 };
    this.states.set(key, next);
    this.record(next, change);
    this.saves++;
    return next;
  }

  private record(p: PaymentState, change: PaymentChange): void {
    this.events.push(...change.events.map((e) => ({ paymentId: p.id, ...e })));
  }

  async list(q: PaymentQuery): Promise<PaymentState[]> {
    const byAmount = q.ordering === 'amount' || q.ordering === '-amount';
    const sign = q.ordering.startsWith('-') ? -1 : 1;
    const skip = q.skip ?? 0;
    return this.matching(q)
      .sort((a, b) => sign * (byAmount ? (lt(a.amountUsd, b.amountUsd) ? -1 : gt(a.amountUsd, b.amountUsd) ? 1 : 0) : a.createdAt.localeCompare(b.createdAt)))
      .slice(skip, skip + q.take);
  }

  async countMatching(f: PaymentFilter, bound: number): Promise<number> {
    return Math.min(this.matching(f).length, bound);
  }

  private matching(q: PaymentFilter): PaymentState[] {
    return [...this.states.values()]
      .filter((p) => p.tenantId === q.tenantId)
      .filter(
        (p) =>
          (q.status === undefined || p.status === q.status) &&
          (q.currency === undefined || p.currency === q.currency) &&
          (q.network === undefined || p.network === q.network),
      )
      .filter((p) => (q.token === undefined || p.token === q.token) && (q.orderId === undefined || p.orderId === q.orderId))
      .filter((p) => (q.createdAfter === undefined || p.createdAt >= q.createdAfter) && (q.createdBefore === undefined || p.createdAt <= q.createdBefore))
      .filter((p) => (q.amountMin === undefined || !lt(p.amountUsd, q.amountMin)) && (q.amountMax === undefined || !gt(p.amountUsd, q.amountMax)));
  }

  async count(tenantId: string): Promise<number> {
    return [...this.states.values()].filter((p) => p.tenantId === tenantId).length;
  }

  async due(before: string, limit: number): Promise<PaymentState[]> {
    return [...this.states.values()].filter((p) => workQueueOf(p)?.kind === 'waiting' && p.expiryTime <= before).slice(0, limit);
  }

  async open(network: string): Promise<PaymentState[]> {
    return [...this.states.values()].filter((p) => {
      const q = workQueueOf(p);
      return q?.kind === 'open' && q.network === network;
    });
  }

  async waitingNative(network: string): Promise<PaymentState[]> {
    return [...this.states.values()].filter((p) => {
      const q = workQueueOf(p);
      return q?.kind === 'waiting' && q.network === network && q.asset === 'native';
    });
  }

  async matchAddresses(_family: string, addresses: readonly string[]): Promise<AddressMatch[]> {
    return addresses.flatMap((a) => {
      const m = this.addresses.get(a.toLowerCase());
      return m ? [m] : [];
    });
  }
}

export class InMemoryScanCursors implements ScanCursorStore {
  readonly cursors = new Map<string, ScanCursor>();
  readonly leases = new Map<string, { owner: string; until: number }>();

  async get(network: string): Promise<ScanCursor | null> {
    return this.cursors.get(network) ?? null;
  }

  async move(network: string, expected: number | null, next: ScanCursor): Promise<boolean> {
    const current = this.cursors.get(network);
    if ((current?.block ?? null) !== expected) return false;
    this.cursors.set(network, next);
    return true;
  }

  async acquireLease(network: string, owner: string, now: Date, until: Date): Promise<boolean> {
    const held = this.leases.get(network);
    if (held && held.owner !== owner && held.until >= now.getTime()) return false;
    this.leases.set(network, { owner, until: until.getTime() });
    return true;
  }

  async releaseLease(network: string, owner: string): Promise<void> {
    if (this.leases.get(network)?.owner === owner) this.leases.delete(network);
  }

  async leaseHeld(network: string, now: Date): Promise<boolean> {
    return (this.leases.get(network)?.until ?? -Infinity) >= now.getTime();
  }
}

/** Fixed rates: stablecoins 1 USD, ETH/WETH 3000 USD, EUR 1.1, GBP 1.25. */
export function fixedRates(at: Date): StoredRates {
  const stat = (usd: string) => ({ usd, high24h: usd, low24h: usd, change24h: '0', change24hPercent: '0', volume24h: null, marketCap: null });
  return {
    at: at.toISOString(),
    nextUpdate: new Date(at.getTime() + 60_000).toISOString(),
    source: 'test',
    rates: {
      USDTERC20: stat('1'),
      USDCERC20: stat('1'),
      DAIERC20: stat('1'),
      USDTTRC20: stat('1'),
      USDTPOLYGON: stat('1'),
      USDTBSC: stat('1'),
      USDTARB: stat('1'),
      ETH: stat('3000'),
      WETH: stat('3000'),
      BTC: stat('60000'),
      MATIC: stat('0.5'),
    },
    fiat: { EUR: '1.1', GBP: '1.25' },
  };
}

/** Rate ports answering `fixedRates` at the clock's time; no market source (a refresh would be a test bug). */
export function fixedRatesDeps(clock: Clock, disabled: ReadonlySet<string> = new Set()): RatesDeps {
  return {
    store: { current: async () => fixedRates(clock.now()), putCurrent: async () => undefined, candles: async () => [], putCandles: async () => undefined },
    provider: {
      name: 'fixed',
      fetchSnapshot: async () => {
        throw new Error('No market source in unit tests.');
      },
    },
    disabled,
  };
}

/** A distinct fake token contract per catalogue currency (the hex of its code), null for a native coin. */
export const fakeTokenContract = (c: CurrencyDefinition): string | null => (c.native ? null : `0x${Buffer.from(c.code).toString('hex').padStart(40, '0')}`);

/** Every network a chain adapter exists for (all but Bitcoin). */
export const CHAIN_NETWORKS: readonly NetworkCode[] = NETWORK_CODES.filter((n) => n !== 'BTC');

/**
 * A deployment serving payments on `payments` and withdrawals on `withdrawals` (default: the same networks), with
 * every catalogue token's contract known unless `withoutContracts` names it.
 */
export function serving(
  payments: readonly NetworkCode[],
  withdrawals: readonly NetworkCode[] = payments,
  withoutContracts: readonly CurrencyCode[] = [],
): ServedNetworks {
  return {
    payments: new Set(payments),
    withdrawals: new Set(withdrawals),
    tokens: new Set(CURRENCY_LIST.filter((c) => !c.native && !withoutContracts.includes(c.code)).map((c) => c.code)),
  };
}

export interface FakePayments extends ScannerDeps {
  readonly payments: InMemoryPayments;
  readonly cursors: InMemoryScanCursors;
  readonly clock: VirtualClock;
  readonly ledger: InMemoryLedger;
}

/**
 * Payment deps with every port in memory: payments served on ETH unless `served` says otherwise, the catalogue's
 * tokens, fixed rates, a virtual clock.
 */
export function fakePayments(
  options: { readonly clock?: VirtualClock; readonly wallets?: readonly string[]; readonly served?: ServedNetworks } = {},
): FakePayments {
  const clock = options.clock ?? new VirtualClock();
  const ledger = new InMemoryLedger();
  const payments = new InMemoryPayments(ledger);
  let next = 0;
  const deps: PaymentsDeps = {
    payments,
    rates: fixedRatesDeps(clock),
    wallets: { exists: async (_tenant, walletId) => (options.wallets ?? []).includes(walletId) },
    addresses: {
      addressFor: async () => {
        next += 1;
        return { address: `0xaa${next.toString(16).padStart(38, '0')}`, salt: `0x${next.toString(16).padStart(64, '0')}` };
      },
    },
    contracts: fakeTokenContract,
    served: options.served ?? serving(['ETH']),
    settings: { underpaymentTolerancePercent: '0', lateWatchHours: 24, allowLoopbackCallbacks: true, publicBaseUrl: null, confirmationsFor: () => 2 },
    clock,
  };
  return { ...deps, payments, cursors: new InMemoryScanCursors(), clock, ledger };
}
