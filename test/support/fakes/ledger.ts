import type { CurrencyCode } from '../../../shared/domain/currencies.js';
import type { AccountId, Balance, BalanceRow, EntryType, JournalEntry, PlatformAccount, Posting, PostingQuery } from '../../../shared/domain/ledger.js';
import { applyLines, DuplicateEntryError, isPlatformAccount, journalEntry, postingsOf, ZERO_BALANCE } from '../../../shared/domain/ledger.js';
import type { Decimal } from '../../../shared/domain/money.js';
import type { OutboxEvent } from '../../../shared/store/outbox.js';
import type { LedgerPort, LedgerPostInput } from '../../../shared/usecases/ledger/ports.js';

/**
 * The ledger rules in memory: the model the property tests hold the DynamoDB ledger to, and a fake for
 * unit tests of use cases. A post applies completely or not at all (JavaScript runs it without
 * interleaving), exactly as the store's single transaction does. Extra items are recorded, not executed.
 */
export class InMemoryLedger implements LedgerPort {
  private readonly rows = new Map<
    string,
    {
      tenantId: string;
      account: AccountId;
      currency: CurrencyCode;
      balance: Balance;
      postings: number;
      byType: Partial<Record<EntryType, number>>;
      updatedAt: string;
    }
  >();
  private readonly platform = new Map<string, Balance>();
  readonly entries: JournalEntry[] = [];
  private readonly postingLog: { tenantId: string; posting: Posting }[] = [];
  readonly outbox: OutboxEvent[] = [];
  private sequence = 0;

  async post(input: LedgerPostInput): Promise<JournalEntry> {
    const createdAt = (input.now ?? new Date()).toISOString();
    const id = input.entryId ?? `mem-${++this.sequence}`;
    const entry = journalEntry(input.tenantId, id, input.entry, createdAt);
    if (this.entries.some((e) => e.tenantId === input.tenantId && e.id === id)) throw new DuplicateEntryError(id);
    const get = (account: AccountId): Balance =>
      isPlatformAccount(account)
        ? (this.platform.get(`${account}|${entry.currency}`) ?? ZERO_BALANCE)
        : (this.rows.get(this.rowKey(input.tenantId, account, entry.currency))?.balance ?? ZERO_BALANCE);
    const next = applyLines(get, entry.currency, entry.lines);
    for (const [account, balance] of next) {
      if (isPlatformAccount(account)) {
        this.platform.set(`${account}|${entry.currency}`, balance);
        continue;
      }
      const key = this.rowKey(input.tenantId, account, entry.currency);
      const row = this.rows.get(key) ?? { tenantId: input.tenantId, account, currency: entry.currency, balance, postings: 0, byType: {}, updatedAt: createdAt };
      row.balance = balance;
      row.postings += 1;
      row.byType[entry.type] = (row.byType[entry.type] ?? 0) + 1;
      row.updatedAt = createdAt;
      this.rows.set(key, row);
    }
    this.entries.push(entry);
    this.postingLog.push(...postingsOf(entry).map((posting) => ({ tenantId: input.tenantId, posting })));
    this.outbox.push(...(input.outbox ?? []));
    return entry;
  }

  async balance(tenantId: string, account: AccountId, currency: CurrencyCode): Promise<Balance> {
    return this.rows.get(this.rowKey(tenantId, account, currency))?.balance ?? ZERO_BALANCE;
  }

  async balances(tenantId: string, account?: AccountId): Promise<BalanceRow[]> {
    return [...this.rows.values()]
      .filter((r) => r.tenantId === tenantId && (account === undefined || r.account === account))
      .map((r) => ({
        account: r.account,
        currency: r.currency,
        balance: r.balance,
        postings: r.postings,
        postingsByType: { ...r.byType },
        updatedAt: r.updatedAt,
      }));
  }

  async platformBalances(account: PlatformAccount): Promise<Record<string, Decimal>> {
    const out: Record<string, Decimal> = {};
    for (const [key, balance] of this.platform) {
      const [acc, currency] = key.split('|');
      if (acc === account && currency) out[currency] = balance.amount;
    }
    return out;
  }

  async postings(tenantId: string, account: AccountId, query: PostingQuery): Promise<Posting[]> {
    return this.postingLog
      .filter((p) => p.tenantId === tenantId)
      .map((p) => p.posting)
      .filter((p) => p.account === account)
      .filter((p) => (query.currency ? p.currency === query.currency : true) && (query.type ? p.type === query.type : true))
      .reverse()
      .slice(query.offset, query.offset + query.limit);
  }

  private rowKey(tenantId: string, account: AccountId, currency: string): string {
    return `${tenantId}|${account}|${currency}`;
  }
}
