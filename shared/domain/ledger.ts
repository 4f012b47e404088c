import type { CurrencyCode } from './currencies.js';
import { CURRENCIES, isCurrencyCode } from './currencies.js';
import { ConflictError, InsufficientBalanceError, ValidationError } from './errors.js';
import type { Decimal } from './money.js';
import { add, isDecimalText, isNegative, isPositive, isZero, MAX_SIGNIFICANT_DIGITS, neg, normalize, scaleOf, significantDigits, sum } from './money.js';

/**
 * Ledger rules, pure. Money lives in balance rows, one per (tenant, account, currency), each with three
 * pockets:
 *
 * - `amount`: settled funds free to use (what can be withdrawn or transferred);
 * - `locked`: settled funds held for an outgoing movement (a pending withdrawal); moved out of `amount`;
 * - `pending`: incoming funds not yet settled (a deposit still confirming).
 *
 * The total a tenant owns in an account is `amount + locked`. Every pocket of a customer account
 * (`main`, `wallet:<id>`, `custody:<id>`) is never negative. Platform accounts (`platform:fees`,
 * `platform:network_fees`) are the platform's own and may go negative (network fees paid before they are
 * charged); `platform:external` is the outside world, the counterpart of money entering or leaving, and has
 * no balance row (its balance would be minus everything that ever came in).
 *
 * A change is a journal entry: legs moving an amount of ONE currency from one pocket to another. Its lines
 * (the net change per account and pocket) therefore always sum to zero, and the stored balances always equal
 * the sum of the journal's lines.
 */

export const PLATFORM_ACCOUNTS = ['platform:fees', 'platform:network_fees', 'platform:external'] as const;
export type PlatformAccount = (typeof PLATFORM_ACCOUNTS)[number];
export type CustomerAccount = 'main' | `wallet:${string}` | `custody:${string}`;
export type AccountId = CustomerAccount | PlatformAccount;

export const MAIN: CustomerAccount = 'main';
export const FEES: PlatformAccount = 'platform:fees';
export const NETWORK_FEES: PlatformAccount = 'platform:network_fees';
export const EXTERNAL: PlatformAccount = 'platform:external';

export const walletAccount = (walletId: string): CustomerAccount => `wallet:${walletId}`;
export const custodyAccount = (accountId: string): CustomerAccount => `custody:${accountId}`;
/** The wallet a `wallet:<id>` account belongs to; null for any other account. */
export const walletIdOf = (account: AccountId): string | null => (account.startsWith('wallet:') ? account.slice('wallet:'.length) : null);

export const BALANCE_FIELDS = ['amount', 'pending', 'locked'] as const;
export type BalanceField = (typeof BALANCE_FIELDS)[number];

/**
 * Entry types (the `type` filter of the balance history). Add a type here when a new kind of movement
 * appears; the journal stores it as text.
 */
export const ENTRY_TYPES = [
  'deposit',
  'deposit_confirmed',
  'payment',
  'withdrawal_hold',
  'withdrawal_release',
  'withdrawal',
  'refund_hold',
  'refund_release',
  'refund',
  'transfer',
  'custody_deposit',
  'custody_transfer',
  'custody_withdrawal',
  'fee',
  'network_fee',
  'adjustment',
] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

export function isEntryType(value: string): value is EntryType {
  return (ENTRY_TYPES as readonly string[]).includes(value);
}

const ID_PART = /^[A-Za-z0-9_.:-]{1,64}$/;

export function isCustomerAccount(account: string): account is CustomerAccount {
  if (account === 'main') return true;
  const m = /^(wallet|custody):(.+)$/.exec(account);
  return m !== null && ID_PART.test(m[2] ?? '');
}

export function isPlatformAccount(account: string): account is PlatformAccount {
  return (PLATFORM_ACCOUNTS as readonly string[]).includes(account);
}

export function isAccountId(account: string): account is AccountId {
  return isCustomerAccount(account) || isPlatformAccount(account);
}

/** Accounts that have balance rows: all but the outside world. */
export function hasBalanceRow(account: AccountId): boolean {
  return account !== EXTERNAL;
}

/** Customer pockets are never negative; platform pockets may be. */
export function isGuarded(account: AccountId): boolean {
  return isCustomerAccount(account);
}

export interface Pocket {
  readonly account: AccountId;
  readonly field: BalanceField;
}

/** A pocket, `amount` unless stated. */
export const pocket = (account: AccountId, field: BalanceField = 'amount'): Pocket => ({ account, field });

export interface Leg {
  readonly from: Pocket;
  readonly to: Pocket;
  readonly amount: Decimal;
}

export interface EntryReference {
  /** What the entry belongs to: `payment`, `withdrawal`, `transfer`, `operator`... */
  readonly kind: string;
  readonly id: string;
}

export interface EntryDraft {
  readonly type: EntryType;
  readonly currency: CurrencyCode;
  readonly legs: readonly Leg[];
  readonly reference?: EntryReference;
  /** Why (required for adjustments). */
  readonly reason?: string;
  /** Free text facts kept with the entry (tx hash, operator name...). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** The net change of one pocket of one account. */
export interface JournalLine {
  readonly account: AccountId;
  readonly field: BalanceField;
  readonly delta: Decimal;
}

/** An immutable journal entry. */
export interface JournalEntry {
  readonly id: string;
  readonly tenantId: string;
  readonly type: EntryType;
  readonly currency: CurrencyCode;
  readonly lines: readonly JournalLine[];
  readonly createdAt: string;
  readonly reference: EntryReference | null;
  readonly reason: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface Balance {
  readonly amount: Decimal;
  readonly pending: Decimal;
  readonly locked: Decimal;
}

export const ZERO_BALANCE: Balance = Object.freeze({ amount: '0', pending: '0', locked: '0' });

/** What the tenant owns in the account (`amount + locked`). */
export const totalOf = (balance: Balance): Decimal => add(balance.amount, balance.locked);

/** A duplicate entry id: the entry (a natural id such as `deposit:<id>`) was already posted. */
export class DuplicateEntryError extends ConflictError {
  readonly entryId: string;

  constructor(entryId: string) {
    super(`Journal entry ${entryId} is already posted.`, { entry_id: entryId });
    this.name = 'DuplicateEntryError';
    this.entryId = entryId;
  }
}

/** Refusal of an entry because a guarded pocket would go below zero. */
export function insufficientBalance(
  account: AccountId,
  currency: string,
  field: BalanceField,
  requested: Decimal,
  available: Decimal | null,
): InsufficientBalanceError {
  return new InsufficientBalanceError({
    account,
    currency,
    field,
    requested,
    ...(available === null ? {} : { available }),
  });
}

const pocketKey = (p: Pocket): string => `${p.account}|${p.field}`;

/**
 * Validates a draft and turns it into the entry's lines: the net change per (account, pocket), zero changes
 * dropped, in a stable order. Throws ValidationError for a malformed draft.
 */
export function linesOf(draft: EntryDraft): JournalLine[] {
  const problems: string[] = [];
  if (!isCurrencyCode(draft.currency)) problems.push(`Unknown currency ${String(draft.currency)}.`);
  if (draft.legs.length === 0) problems.push('An entry needs at least one leg.');
  if (draft.type === 'adjustment' && !draft.reason?.trim()) problems.push('An adjustment needs a reason.');
  const decimals = isCurrencyCode(draft.currency) ? CURRENCIES[draft.currency].decimals : 18;
  const net = new Map<string, { pocket: Pocket; deltas: Decimal[] }>();
  draft.legs.forEach((leg, i) => {
    for (const p of [leg.from, leg.to]) {
      if (!isAccountId(p.account)) problems.push(`Leg ${i}: unknown account ${p.account}.`);
      if (!(BALANCE_FIELDS as readonly string[]).includes(p.field)) problems.push(`Leg ${i}: unknown pocket ${p.field}.`);
      if (!isCustomerAccount(p.account) && p.field !== 'amount') problems.push(`Leg ${i}: platform accounts only have an amount.`);
    }
    if (pocketKey(leg.from) === pocketKey(leg.to)) problems.push(`Leg ${i}: moves from a pocket to itself.`);
    if (typeof leg.amount !== 'string' || !isDecimalText(leg.amount) || !isPositive(leg.amount)) {
      problems.push(`Leg ${i}: the amount must be a positive decimal.`);
      return;
    }
    if (scaleOf(leg.amount) > decimals) problems.push(`Leg ${i}: more than ${decimals} decimal places.`);
    if (significantDigits(leg.amount) > MAX_SIGNIFICANT_DIGITS) problems.push(`Leg ${i}: too many digits.`);
    const push = (p: Pocket, delta: Decimal) => {
      const entry = net.get(pocketKey(p)) ?? { pocket: p, deltas: [] };
      entry.deltas.push(delta);
      net.set(pocketKey(p), entry);
    };
    push(leg.from, neg(leg.amount));
    push(leg.to, normalize(leg.amount));
  });
  if (problems.length > 0) throw new ValidationError({ entry: problems }, `The ledger entry is invalid: ${problems.join(' ')}`);
  const lines = [...net.values()].map(({ pocket: p, deltas }) => ({ account: p.account, field: p.field, delta: sum(deltas) })).filter((l) => !isZero(l.delta));
  lines.sort((a, b) => (a.account === b.account ? BALANCE_FIELDS.indexOf(a.field) - BALANCE_FIELDS.indexOf(b.field) : a.account < b.account ? -1 : 1));
  if (lines.length > 0 && !isZero(sum(lines.map((l) => l.delta)))) throw new Error('Unbalanced entry');
  return lines;
}

/** Net change per account with a balance row (the external account has none). */
export function rowChanges(lines: readonly JournalLine[]): Map<AccountId, Balance> {
  const rows = new Map<AccountId, Balance>();
  for (const line of lines) {
    if (!hasBalanceRow(line.account)) continue;
    const current = rows.get(line.account) ?? ZERO_BALANCE;
    rows.set(line.account, { ...current, [line.field]: add(current[line.field], line.delta) });
  }
  return rows;
}

/**
 * Applies an entry's lines to balances (pure; the in-memory model of what the store does in one
 * transaction). Throws InsufficientBalanceError when a guarded pocket would go below zero; the balances
 * are then unchanged. `get` returns the balance of an account (ZERO_BALANCE when it has none).
 */
export function applyLines(get: (account: AccountId) => Balance, currency: string, lines: readonly JournalLine[]): Map<AccountId, Balance> {
  const next = new Map<AccountId, Balance>();
  for (const [account, change] of rowChanges(lines)) {
    const before = get(account);
    const after: Balance = {
      amount: add(before.amount, change.amount),
      pending: add(before.pending, change.pending),
      locked: add(before.locked, change.locked),
    };
    if (isGuarded(account)) {
      for (const field of BALANCE_FIELDS) {
        if (isNegative(after[field])) throw insufficientBalance(account, currency, field, neg(change[field]), before[field]);
      }
    }
    next.set(account, after);
  }
  return next;
}

// Builders for the common movements. Each returns a draft; the store posts it.

interface Common {
  readonly currency: CurrencyCode;
  readonly amount: Decimal;
  readonly reference?: EntryReference;
  readonly reason?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

const draft = (type: EntryType, c: Common, legs: Leg[]): EntryDraft => ({
  type,
  currency: c.currency,
  legs,
  ...(c.reference ? { reference: c.reference } : {}),
  ...(c.reason ? { reason: c.reason } : {}),
  ...(c.metadata ? { metadata: c.metadata } : {}),
});

/** Money entering from outside into a pocket (default: `amount`). */
export function creditEntry(c: Common & { readonly account: CustomerAccount; readonly type: EntryType; readonly field?: BalanceField }): EntryDraft {
  return draft(c.type, c, [{ from: pocket(EXTERNAL), to: pocket(c.account, c.field ?? 'amount'), amount: c.amount }]);
}

/** Money leaving to outside from a pocket (default: `amount`). */
export function debitEntry(c: Common & { readonly account: CustomerAccount; readonly type: EntryType; readonly field?: BalanceField }): EntryDraft {
  return draft(c.type, c, [{ from: pocket(c.account, c.field ?? 'amount'), to: pocket(EXTERNAL), amount: c.amount }]);
}

/** Settled funds from one account to another. */
export function transferEntry(c: Common & { readonly from: AccountId; readonly to: AccountId; readonly type?: EntryType }): EntryDraft {
  return draft(c.type ?? 'transfer', c, [{ from: pocket(c.from), to: pocket(c.to), amount: c.amount }]);
}

/** Holds funds for an outgoing movement: `amount` -> `locked`. */
export function holdEntry(c: Common & { readonly account: CustomerAccount; readonly type?: EntryType }): EntryDraft {
  return draft(c.type ?? 'withdrawal_hold', c, [{ from: pocket(c.account), to: pocket(c.account, 'locked'), amount: c.amount }]);
}

/** Returns held funds: `locked` -> `amount`. */
export function releaseEntry(c: Common & { readonly account: CustomerAccount; readonly type?: EntryType }): EntryDraft {
  return draft(c.type ?? 'withdrawal_release', c, [{ from: pocket(c.account, 'locked'), to: pocket(c.account), amount: c.amount }]);
}

/** A balance row as read: an account's balance in one currency, with its posting counters. */
export interface BalanceRow {
  readonly account: AccountId;
  readonly currency: CurrencyCode;
  readonly balance: Balance;
  /** Postings (history records) of this account in this currency, in total and per entry type. */
  readonly postings: number;
  readonly postingsByType: Readonly<Partial<Record<EntryType, number>>>;
  readonly updatedAt: string | null;
}

/** One account's side of an entry: the history record of that account. */
export interface Posting {
  readonly entryId: string;
  readonly account: AccountId;
  readonly currency: CurrencyCode;
  readonly type: EntryType;
  /** Changes of the account's pockets (signed decimals). */
  readonly amount: Decimal;
  readonly pending: Decimal;
  readonly locked: Decimal;
  readonly createdAt: string;
  readonly reference: EntryReference | null;
  readonly reason: string | null;
}

export interface PostingQuery {
  readonly currency?: CurrencyCode;
  readonly type?: EntryType;
  readonly limit: number;
  readonly offset: number;
}

/** The postings an entry produces: one per customer account whose pockets it changes. */
export function postingsOf(entry: JournalEntry): Posting[] {
  const postings: Posting[] = [];
  for (const [account, change] of rowChanges(entry.lines)) {
    if (!isCustomerAccount(account)) continue;
    postings.push({
      entryId: entry.id,
      account,
      currency: entry.currency,
      type: entry.type,
      amount: change.amount,
      pending: change.pending,
      locked: change.locked,
      createdAt: entry.createdAt,
      reference: entry.reference,
      reason: entry.reason,
    });
  }
  return postings;
}

const ENTRY_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export function isEntryId(value: string): boolean {
  return ENTRY_ID.test(value);
}

/** Builds the immutable entry from a validated draft. */
export function journalEntry(tenantId: string, id: string, draft: EntryDraft, createdAt: string): JournalEntry {
  if (!isEntryId(id)) throw new ValidationError({ entry_id: ['Must be 1 to 128 characters of A-Z a-z 0-9 _ . : -.'] });
  const lines = linesOf(draft);
  if (lines.length === 0) throw new ValidationError({ entry: ['The entry changes no balance.'] }, 'The ledger entry is invalid.');
  return {
    id,
    tenantId,
    type: draft.type,
    currency: draft.currency,
    lines,
    createdAt,
    reference: draft.reference ?? null,
    reason: draft.reason ?? null,
    metadata: draft.metadata ?? {},
  };
}
