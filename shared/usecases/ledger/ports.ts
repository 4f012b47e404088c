import type { Clock } from '../../domain/clock.js';
import type { CurrencyCode } from '../../domain/currencies.js';
import type { OutboxEvent } from '../../domain/events.js';
import type { AccountId, Balance, BalanceRow, EntryDraft, JournalEntry, PlatformAccount, Posting, PostingQuery } from '../../domain/ledger.js';
import type { Decimal } from '../../domain/money.js';
import type { TenantRepository } from '../tenants/ports.js';

/** One change of the ledger: an entry, posted once under its natural id, with the events that announce it. */
export interface LedgerPostInput {
  readonly tenantId: string;
  readonly entry: EntryDraft;
  /**
   * Natural id (e.g. `deposit:<network>:<tx>:<log>`) that makes the post idempotent: posting the same id
   * again is a DuplicateEntryError and changes nothing. Default: a fresh uuid.
   */
  readonly entryId?: string;
  readonly now?: Date;
  readonly outbox?: readonly OutboxEvent[];
}

/**
 * What use cases need of the ledger. `dynamoLedger` (shared/store/ledger.ts) is the real one;
 * `InMemoryLedger` (test/support/fakes/ledger.ts) applies the same rules in memory for unit and property tests.
 */
export interface LedgerPort {
  /** One atomic change; throws InsufficientBalanceError, DuplicateEntryError, ValidationError. */
  post(input: LedgerPostInput): Promise<JournalEntry>;
  balance(tenantId: string, account: AccountId, currency: CurrencyCode): Promise<Balance>;
  balances(tenantId: string, account?: AccountId): Promise<BalanceRow[]>;
  /** Per currency, summed over shards. */
  platformBalances(account: PlatformAccount): Promise<Record<string, Decimal>>;
  postings(tenantId: string, account: AccountId, query: PostingQuery): Promise<Posting[]>;
}

/** The operator adjustments' ports. */
export interface LedgerPorts {
  readonly ledger: LedgerPort;
  readonly tenants: Pick<TenantRepository, 'get'>;
  readonly clock: Clock;
}
