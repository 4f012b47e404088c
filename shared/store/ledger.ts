import { randomInt, randomUUID } from 'node:crypto';
import type { AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../config/config.js';
import type { CurrencyCode } from '../domain/currencies.js';
import { CURRENCY_CODES } from '../domain/currencies.js';
import type {
  AccountId,
  Balance,
  BalanceField,
  BalanceRow,
  EntryType,
  JournalEntry,
  JournalLine,
  PlatformAccount,
  Posting,
  PostingQuery,
} from '../domain/ledger.js';
import {
  BALANCE_FIELDS,
  DuplicateEntryError,
  insufficientBalance,
  isEntryType,
  isGuarded,
  isPlatformAccount,
  journalEntry,
  postingsOf,
  rowChanges,
  walletIdOf,
  ZERO_BALANCE,
} from '../domain/ledger.js';
import type { Decimal } from '../domain/money.js';
import { adjustmentTransaction } from '../domain/transactions.js';
import { WalletGoneError } from '../domain/wallets.js';
import { add, isNegative, neg, normalize, sum } from '../domain/money.js';
import { batchGet, db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import { outboxChangeItem } from './outbox.js';
import type { TransactItem, TransactOptions } from './transact.js';
import { TransactionConditionError, transactWrite } from './transact.js';
import { historyItems } from './transactions.js';
import { decimalText, integer, storedDecimal } from './values.js';
import type { LedgerPostInput } from '../usecases/ledger/ports.js';

/**
 * The ledger on the single table. Every change is ONE TransactWriteItems holding:
 *
 * 1. the immutable journal entry (`attribute_not_exists`: an entry id is posted once);
 * 2. one update per customer balance row it changes: `ADD` of the net change of each pocket, conditioned so
 *    that no pocket it lowers goes below zero, plus the row's posting counters (history totals) and `last_change`
 *    (the entry and what it added to each pocket: with the new amounts, the row's stream record then says what
 *    changed, which is how a wallet's `wallet.balance_changed` is told, `walletBalanceChangeFromImage`);
 * 3. one posting (history record) per customer account it changes;
 * 3a. for an operator adjustment, its transaction-history record and statistics (shared/store/transactions.ts);
 * 3b. for each wallet account it changes, `ADD ledger_entries 1` on the wallet's item, conditioned on the wallet
 *    existing: a deleted wallet takes no entry (WalletGoneError), and a deletion, conditioned on the count it read
 *    before reading the balances, is refused when an entry committed in between (shared/store/wallets.ts);
 * 4. one update per platform account, on a random shard of N (`FEE_SHARDS`), unconditioned;
 * 5. the caller's outbox events (one outbox item holding them all) and extra items (e.g. an idempotency record), in the same transaction.
 *
 * A cancellation for a condition becomes a domain error: DuplicateEntryError (entry id already posted),
 * InsufficientBalanceError (a guarded pocket), WalletGoneError (a wallet account whose wallet is deleted), or ExtraItemConditionError (one of the caller's items).
 * A cancellation for TransactionConflict is retried with backoff by transactWrite, never reported as
 * insufficient balance. Amounts are DynamoDB Numbers written from decimal text and read wrapped: exact.
 */

/** A post of the ledger port (shared/usecases/ledger/ports.ts), and for the store's own callers, their other writes. */
export interface PostInput extends LedgerPostInput {
  /** The caller's other writes, committed or refused together with the entry. */
  readonly extraItems?: readonly TransactItem[];
}

export interface LedgerWriteOptions extends Pick<TransactOptions, 'sleep' | 'maxAttempts'> {
  /** Shards per platform account; default `FEE_SHARDS`. */
  readonly shards?: number;
  /** Shard picker (tests); default uniform random. */
  readonly pickShard?: (shards: number) => number;
}

/** A condition of one of the caller's extra items failed; `extraIndexes` are positions in `extraItems`. */
export class ExtraItemConditionError extends Error {
  readonly extraIndexes: readonly number[];

  constructor(extraIndexes: number[], options?: { cause?: unknown }) {
    super(`Condition failed on extra item(s) ${extraIndexes.join(', ')}`, options);
    this.name = 'ExtraItemConditionError';
    this.extraIndexes = extraIndexes;
  }
}

type Role =
  | { readonly kind: 'entry' }
  | { readonly kind: 'balance'; readonly account: AccountId; readonly guards: readonly { field: BalanceField; need: Decimal }[] }
  | { readonly kind: 'posting' }
  | { readonly kind: 'wallet'; readonly walletId: string }
  | { readonly kind: 'history' }
  | { readonly kind: 'platform' }
  | { readonly kind: 'outbox'; readonly eventId: string }
  | { readonly kind: 'extra'; readonly index: number };

export interface PreparedPost {
  readonly entry: JournalEntry;
  readonly items: TransactItem[];
  /** What each item is, index for index (to explain a cancellation). */
  readonly roles: readonly Role[];
}

const MAX_TRANSACTION_ITEMS = 100;

const counterName = (type: EntryType): string => `postings_${type}`;

function entryItem(entry: JournalEntry): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.journalEntry(entry.tenantId, entry.id),
        ...keys.journalList(entry.tenantId, entry.createdAt, entry.id),
        type: 'journal_entry',
        tenant_id: entry.tenantId,
        entry_id: entry.id,
        entry_type: entry.type,
        currency: entry.currency,
        lines: entry.lines.map((l) => ({ account: l.account, field: l.field, delta: storedDecimal(l.delta) })),
        created_at: entry.createdAt,
        reference_kind: entry.reference?.kind ?? null,
        reference_id: entry.reference?.id ?? null,
        reason: entry.reason,
        metadata: entry.metadata,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

function balanceItem(entry: JournalEntry, account: AccountId, change: Balance): { item: TransactItem; role: Role } {
  const guards = isGuarded(account) ? BALANCE_FIELDS.filter((f) => isNegative(change[f])).map((field) => ({ field, need: neg(change[field]) })) : [];
  const values: Record<string, unknown> = {
    ':tenant': entry.tenantId,
    ':account': account,
    ':currency': entry.currency,
    ':now': entry.createdAt,
    ':kind': 'balance',
    ':amount': storedDecimal(change.amount),
    ':pending': storedDecimal(change.pending),
    ':locked': storedDecimal(change.locked),
    ':one': storedDecimal('1'),
    ':last': {
      entry_id: entry.id,
      entry_type: entry.type,
      reference_kind: entry.reference?.kind ?? null,
      reference_id: entry.reference?.id ?? null,
      amount: storedDecimal(change.amount),
      pending: storedDecimal(change.pending),
      locked: storedDecimal(change.locked),
    },
  };
  for (const g of guards) values[`:need_${g.field}`] = storedDecimal(g.need);
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.balance(entry.tenantId, account, entry.currency),
        UpdateExpression:
          'SET #type = :kind, tenant_id = :tenant, account = :account, currency = :currency, updated_at = :now, last_change = :last ' +
          'ADD amount :amount, pending :pending, locked :locked, postings :one, #by_type :one',
        ConditionExpression: guards.length > 0 ? guards.map((g) => `${g.field} >= :need_${g.field}`).join(' AND ') : undefined,
        ExpressionAttributeNames: { '#type': 'type', '#by_type': counterName(entry.type) },
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: guards.length > 0 ? 'ALL_OLD' : undefined,
      },
    },
    role: { kind: 'balance', account, guards },
  };
}

function postingItem(posting: Posting, tenantId: string): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.posting(tenantId, posting.account, posting.currency, posting.createdAt, posting.entryId),
        ...keys.postingList(tenantId, posting.account, posting.createdAt, posting.entryId),
        type: 'posting',
        tenant_id: tenantId,
        entry_id: posting.entryId,
        account: posting.account,
        currency: posting.currency,
        entry_type: posting.type,
        amount: storedDecimal(posting.amount),
        pending: storedDecimal(posting.pending),
        locked: storedDecimal(posting.locked),
        created_at: posting.createdAt,
        reference_kind: posting.reference?.kind ?? null,
        reference_id: posting.reference?.id ?? null,
        reason: posting.reason,
      },
    },
  };
}

/** Counts an entry on its wallet's item, which must exist (see 3b above). */
function walletTouchItem(tenantId: string, walletId: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.wallet(tenantId, walletId),
      UpdateExpression: 'ADD ledger_entries :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

function platformItem(entry: JournalEntry, account: PlatformAccount, delta: Decimal, shard: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.platformBalance(account, entry.currency, shard),
      UpdateExpression: 'SET #type = :kind, account = :account, currency = :currency, #shard = :shard, updated_at = :now ADD amount :delta',
      ExpressionAttributeNames: { '#type': 'type', '#shard': 'shard' },
      ExpressionAttributeValues: {
        ':kind': 'platform_balance',
        ':account': account,
        ':currency': entry.currency,
        ':shard': shard,
        ':now': entry.createdAt,
        ':delta': storedDecimal(delta),
      },
    },
  };
}

/** Validates the draft and builds the transaction (exposed for tests and the benchmark). */
export function preparePost(input: PostInput, options: LedgerWriteOptions = {}): PreparedPost {
  const createdAt = (input.now ?? new Date()).toISOString();
  const entry = journalEntry(input.tenantId, input.entryId ?? randomUUID(), input.entry, createdAt);
  const shards = options.shards ?? config().FEE_SHARDS;
  const pickShard = options.pickShard ?? ((n: number) => randomInt(n));
  const items: TransactItem[] = [entryItem(entry)];
  const roles: Role[] = [{ kind: 'entry' }];
  for (const [account, change] of rowChanges(entry.lines)) {
    if (isPlatformAccount(account)) continue;
    const { item, role } = balanceItem(entry, account, change);
    items.push(item);
    roles.push(role);
  }
  for (const posting of postingsOf(entry)) {
    items.push(postingItem(posting, entry.tenantId));
    roles.push({ kind: 'posting' });
  }
  // An operator adjustment is a movement of its own: its history record and statistics come with it.
  if (entry.type === 'adjustment') {
    for (const item of historyItems(entry.tenantId, null, adjustmentTransaction(entry))) {
      items.push(item);
      roles.push({ kind: 'history' });
    }
  }
  for (const [account] of rowChanges(entry.lines)) {
    const walletId = walletIdOf(account);
    if (walletId === null) continue;
    items.push(walletTouchItem(entry.tenantId, walletId));
    roles.push({ kind: 'wallet', walletId });
  }
  for (const [account, change] of rowChanges(entry.lines)) {
    if (!isPlatformAccount(account)) continue;
    items.push(platformItem(entry, account, change.amount, pickShard(shards)));
    roles.push({ kind: 'platform' });
  }
  // The change's events, all in one outbox item named by the first (shared/store/outbox.ts).
  const [firstEvent] = input.outbox ?? [];
  if (firstEvent) {
    items.push(outboxChangeItem(input.outbox ?? []));
    roles.push({ kind: 'outbox', eventId: firstEvent.eventId });
  }
  (input.extraItems ?? []).forEach((item, index) => {
    items.push(item);
    roles.push({ kind: 'extra', index });
  });
  if (items.length > MAX_TRANSACTION_ITEMS) {
    throw new RangeError(`A ledger transaction holds at most ${MAX_TRANSACTION_ITEMS} items; this one has ${items.length}`);
  }
  return { entry, items, roles };
}

function oldValue(item: Record<string, AttributeValue> | undefined, field: BalanceField): Decimal {
  const value = item?.[field];
  return value && 'N' in value && value.N !== undefined ? normalize(value.N) : '0';
}

/** Turns a cancelled ledger transaction into the domain error it means. */
function explain(prepared: PreparedPost, error: TransactionConditionError): Error {
  const failed = error.failedIndexes.map((i) => ({ index: i, role: prepared.roles[i] }));
  const { entry } = prepared;
  if (failed.some((f) => f.role?.kind === 'entry')) return new DuplicateEntryError(entry.id);
  // A deleted wallet's rows are zero, so a hold on it fails its guards too: the wallet is the reason.
  const wallet = failed.find((f) => f.role?.kind === 'wallet');
  if (wallet?.role?.kind === 'wallet') return new WalletGoneError(wallet.role.walletId);
  const reasons = (error.cause as TransactionCanceledException | undefined)?.CancellationReasons ?? [];
  for (const { index, role } of failed) {
    if (role?.kind !== 'balance') continue;
    const old = reasons[index]?.Item;
    // The first guard the stored row does not satisfy (a missing row satisfies none).
    const broken = role.guards.find((g) => isNegative(add(oldValue(old, g.field), neg(g.need)))) ?? role.guards[0];
    if (!broken) continue;
    return insufficientBalance(role.account, entry.currency, broken.field, broken.need, old ? oldValue(old, broken.field) : null);
  }
  const outbox = failed.find((f) => f.role?.kind === 'outbox');
  if (outbox?.role?.kind === 'outbox') return new Error(`Outbox event ${outbox.role.eventId} already exists`, { cause: error });
  const extras = failed.flatMap((f) => (f.role?.kind === 'extra' ? [f.role.index] : []));
  if (extras.length > 0) return new ExtraItemConditionError(extras, { cause: error });
  return error;
}

/**
 * Posts a journal entry with its balance changes, postings, outbox events and extra items in one
 * transaction. Resolves to the posted entry.
 */
export async function postEntry(input: PostInput, options: LedgerWriteOptions = {}): Promise<JournalEntry> {
  const prepared = preparePost(input, options);
  try {
    await transactWrite(prepared.items, { maxAttempts: options.maxAttempts ?? 10, sleep: options.sleep });
  } catch (error) {
    if (error instanceof TransactionConditionError) throw explain(prepared, error);
    throw error;
  }
  return prepared.entry;
}

// Reads.

type Stored = Record<string, unknown>;

function toBalance(item: Stored | undefined): Balance {
  if (!item) return ZERO_BALANCE;
  return {
    amount: normalize(decimalText(item.amount ?? '0')),
    pending: normalize(decimalText(item.pending ?? '0')),
    locked: normalize(decimalText(item.locked ?? '0')),
  };
}

function toBalanceRow(item: Stored): BalanceRow {
  const byType: Partial<Record<EntryType, number>> = {};
  for (const [name, value] of Object.entries(item)) {
    const type = name.startsWith('postings_') ? name.slice('postings_'.length) : '';
    if (isEntryType(type)) byType[type] = integer(value);
  }
  return {
    account: item.account as AccountId,
    currency: item.currency as CurrencyCode,
    balance: toBalance(item),
    postings: integer(item.postings),
    postingsByType: byType,
    updatedAt: (item.updated_at as string | undefined) ?? null,
  };
}

/** One balance, read strongly consistent; zero when the row does not exist. */
export async function getBalance(tenantId: string, account: AccountId, currency: CurrencyCode): Promise<Balance> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.balance(tenantId, account, currency), ConsistentRead: true }));
  return toBalance(Item);
}

/** Balance rows of a tenant: of one account, or of every account. */
export async function listBalances(tenantId: string, account?: AccountId): Promise<BalanceRow[]> {
  const prefix = keys.balancePrefix(tenantId, account);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
    ConsistentRead: true,
  });
  return items.map(toBalanceRow);
}

/** A platform account's balance per currency, summed over its shards. */
export async function platformBalances(
  account: PlatformAccount,
  currencies: readonly CurrencyCode[] = CURRENCY_CODES,
  shards = config().FEE_SHARDS,
): Promise<Record<string, Decimal>> {
  const wanted = currencies.flatMap((currency) => Array.from({ length: shards }, (_, shard) => keys.platformBalance(account, currency, shard)));
  const found: Stored[] = await batchGet(wanted, { consistent: true });
  const totals: Record<string, Decimal[]> = {};
  for (const item of found) {
    const currency = item.currency as string;
    (totals[currency] ??= []).push(decimalText(item.amount ?? '0'));
  }
  return Object.fromEntries(Object.entries(totals).map(([currency, parts]) => [currency, sum(parts)]));
}

function toPosting(item: Stored): Posting {
  const kind = item.reference_kind as string | null | undefined;
  const id = item.reference_id as string | null | undefined;
  return {
    entryId: item.entry_id as string,
    account: item.account as AccountId,
    currency: item.currency as CurrencyCode,
    type: item.entry_type as EntryType,
    amount: normalize(decimalText(item.amount)),
    pending: normalize(decimalText(item.pending)),
    locked: normalize(decimalText(item.locked)),
    createdAt: item.created_at as string,
    reference: kind && id ? { kind, id } : null,
    reason: (item.reason as string | null | undefined) ?? null,
  };
}

/**
 * An account's postings, newest first: one currency (main table, consistent) or every currency (gsi1).
 * `type` filters; `offset` skips matching postings (reads them: history pages are shallow).
 */
export async function listPostings(tenantId: string, account: AccountId, query: PostingQuery): Promise<Posting[]> {
  const base: QueryCommandInput = query.currency
    ? {
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keys.postingPrefix(tenantId, account, query.currency).pk,
          ':prefix': keys.postingPrefix(tenantId, account, query.currency).skPrefix,
        },
        ConsistentRead: true,
      }
    : {
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.postingListPartition(tenantId, account) },
      };
  const input: QueryCommandInput = query.type
    ? {
        ...base,
        FilterExpression: 'entry_type = :type',
        ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':type': query.type },
      }
    : base;
  const wanted = query.offset + query.limit;
  const items: Stored[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({ ...input, ScanIndexForward: false, ExclusiveStartKey: start, Limit: Math.min(1000, wanted - items.length + 10) }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < wanted);
  return items.slice(query.offset, wanted).map(toPosting);
}

function toEntry(item: Stored): JournalEntry {
  const kind = item.reference_kind as string | null | undefined;
  const id = item.reference_id as string | null | undefined;
  return {
    id: item.entry_id as string,
    tenantId: item.tenant_id as string,
    type: item.entry_type as EntryType,
    currency: item.currency as CurrencyCode,
    lines: (item.lines as Stored[]).map((l): JournalLine => ({
      account: l.account as AccountId,
      field: l.field as BalanceField,
      delta: normalize(decimalText(l.delta)),
    })),
    createdAt: item.created_at as string,
    reference: kind && id ? { kind, id } : null,
    reason: (item.reason as string | null | undefined) ?? null,
    metadata: (item.metadata as Record<string, string> | undefined) ?? {},
  };
}

/** Every journal entry of a tenant (audits, reconciliation, tests): a consistent query of its partition. */
export async function listAllEntries(tenantId: string): Promise<JournalEntry[]> {
  const key = keys.journalEntry(tenantId, '');
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': key.pk, ':prefix': key.sk },
    ConsistentRead: true,
  });
  return items.map(toEntry);
}

/** The DynamoDB ledger as the use cases' port. */
export const dynamoLedger = {
  post: (input: PostInput) => postEntry(input),
  balance: getBalance,
  balances: listBalances,
  platformBalances: (account: PlatformAccount) => platformBalances(account),
  postings: listPostings,
} as const;
