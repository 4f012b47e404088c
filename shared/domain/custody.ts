import { amountText } from './amounts.js';
import type { CurrencyCode } from './currencies.js';
import { isCurrencyCode } from './currencies.js';
import { ConflictError, GatewayError } from './errors.js';
import type { EventDraft } from './events.js';
import { EVENTS, eventDraft } from './events.js';
import type { CustomerAccount, EntryDraft } from './ledger.js';
import { creditEntry, custodyAccount, transferEntry } from './ledger.js';
import type { Decimal } from './money.js';
import { add, gt, sub } from './money.js';

/**
 * Custody accounts (spec 2.10, 4.8): a tenant's own treasuries (standard, hot, cold) holding USDT on four chains.
 * The built-in provider keeps an account's money in the ledger account `custody:<account id>`, one balance row
 * per chain's USDT currency, and its deposit addresses on the gateway's own chains.
 */

export const CUSTODY_BLOCKCHAINS = ['ETH', 'BSC', 'TRX', 'SOL'] as const;
export type CustodyBlockchain = (typeof CUSTODY_BLOCKCHAINS)[number];
export const isCustodyBlockchain = (b: string): b is CustodyBlockchain => (CUSTODY_BLOCKCHAINS as readonly string[]).includes(b);

/** The USDT of each custody chain, as the currency catalogue names it (the ledger's currency of that chain's row). */
export const CUSTODY_CURRENCIES: Readonly<Record<CustodyBlockchain, string>> = { ETH: 'USDTERC20', BSC: 'USDTBSC', TRX: 'USDTTRC20', SOL: 'USDTSOL' };
export const CUSTODY_TOKEN = 'USDT';

/** The ledger currency of a chain's USDT; null while the catalogue does not carry it. */
export function custodyCurrency(blockchain: CustodyBlockchain): CurrencyCode | null {
  const code = CUSTODY_CURRENCIES[blockchain];
  return isCurrencyCode(code) ? code : null;
}

/** The custody chain whose USDT `currency` is; null for a currency custody does not hold. */
export const custodyBlockchainOf = (currency: string): CustodyBlockchain | null => CUSTODY_BLOCKCHAINS.find((b) => CUSTODY_CURRENCIES[b] === currency) ?? null;

export const ACCOUNT_TYPES = ['standard', 'hot', 'cold'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export const ACCOUNT_STATUSES = ['active', 'inactive'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** An account that takes deposits, withdrawals and transfers (an inactive one takes none). */
export const isActiveAccount = (a: { readonly status: AccountStatus }): boolean => a.status === 'active';

/** The provider built into the gateway (its own chains and ledger). */
export const BUILTIN_PROVIDER = 'gateway';

export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_LENGTH = 256;

export interface CustodyAccountState {
  readonly tenantId: string;
  readonly accountId: string;
  readonly name: string;
  readonly provider: string;
  readonly accountType: AccountType;
  readonly status: AccountStatus;
  readonly metadata: Readonly<Record<string, string>>;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
}

export const custodyLedgerAccount = (a: Pick<CustodyAccountState, 'accountId'>): CustomerAccount => custodyAccount(a.accountId);

/** A custody account unknown, another tenant's, or not named by an id at all: 404 `account_not_found`. */
export class AccountNotFoundError extends GatewayError {
  constructor(accountId: string) {
    super('account_not_found', `Custody account ${accountId} was not found.`, { account_id: accountId });
    this.name = 'AccountNotFoundError';
  }
}

export function openAccount(
  input: Pick<CustodyAccountState, 'tenantId' | 'accountId' | 'name' | 'provider' | 'accountType' | 'metadata'>,
  now: Date,
): CustodyAccountState {
  const at = now.toISOString();
  return { ...input, status: 'active', createdAt: at, updatedAt: at, version: 0 };
}

/** A deposit address of an account on one chain (created once; later calls return it). */
export interface CustodyAddressState {
  readonly tenantId: string;
  readonly accountId: string;
  readonly blockchain: CustodyBlockchain;
  readonly address: string;
  readonly createdAt: string;
  readonly lastDepositAt: string | null;
  /** The KMS key whose public key the address is (Solana: the account signs for its own address); never shown. */
  readonly keyId?: string;
  /**
   * Solana: the newest signature of the address's token account history read and finalized, with every older
   * one (`listIncomingTokenTransfers`' cursor); the next poll reads what came after it.
   */
  readonly historyCursor?: string;
}

/** The CREATE2 salt seed of an account's forwarder (a payment's is its uuid; an account's cannot collide with it). */
export const custodySaltId = (accountId: string): string => `custody:${accountId}`;

export const CUSTODY_TRANSFER_STATUSES = ['completed'] as const;

/** An internal move between two accounts of one tenant on one chain: one ledger entry, completed at once. */
export interface CustodyTransferState {
  readonly tenantId: string;
  readonly transferId: string;
  readonly fromAccountId: string;
  readonly toAccountId: string;
  readonly blockchain: CustodyBlockchain;
  readonly currency: CurrencyCode;
  readonly amount: Decimal;
  readonly status: (typeof CUSTODY_TRANSFER_STATUSES)[number];
  readonly reference: string | null;
  readonly createdAt: string;
  readonly completedAt: string;
}

/**
 * Checks a transfer between two accounts (both the tenant's, read beforehand) and builds it with its ledger
 * entry: `same_account` for one account, `invalid_request` for an inactive one.
 */
export function planTransfer(
  input: {
    readonly transferId: string;
    readonly from: CustodyAccountState;
    readonly to: CustodyAccountState;
    readonly blockchain: CustodyBlockchain;
    readonly currency: CurrencyCode;
    readonly amount: Decimal;
    readonly reference: string | null;
  },
  now: Date,
): { state: CustodyTransferState; entry: EntryDraft } {
  if (input.from.accountId === input.to.accountId)
    throw new GatewayError('same_account', 'The source and destination accounts are the same.', { account_id: input.from.accountId });
  for (const [field, account] of [
    ['from_account_id', input.from],
    ['to_account_id', input.to],
  ] as const) {
    if (account.status !== 'active')
      throw new GatewayError('invalid_request', `The account ${account.accountId} is ${account.status}.`, { [field]: [`The account is ${account.status}.`] });
  }
  const at = now.toISOString();
  const state: CustodyTransferState = {
    tenantId: input.from.tenantId,
    transferId: input.transferId,
    fromAccountId: input.from.accountId,
    toAccountId: input.to.accountId,
    blockchain: input.blockchain,
    currency: input.currency,
    amount: input.amount,
    status: 'completed',
    reference: input.reference,
    createdAt: at,
    completedAt: at,
  };
  const entry = transferEntry({
    type: 'custody_transfer',
    from: custodyLedgerAccount(input.from),
    to: custodyLedgerAccount(input.to),
    currency: input.currency,
    amount: input.amount,
    reference: { kind: 'custody_transfer', id: input.transferId },
  });
  return { state, entry };
}

/* ------------------------------------------------------------------------------------------------------ deposits */

/**
 * A USDT deposit to an account's address, found by the chain scanners like a payment's: `confirming` until the
 * currency's confirmations (its block re-checked each pass), then `credited` (ONE ledger entry to the account's
 * row of that chain), then swept into the treasury (`sweeping`, `swept`); `dropped` when a reorganisation took
 * its block away before it was credited. A Solana deposit stays at the account's own address: `credited` once
 * its transaction is finalized, and that is its end (`heldAtAddress`).
 */
export const CUSTODY_DEPOSIT_STATUSES = ['confirming', 'credited', 'sweeping', 'swept', 'dropped'] as const;
export type CustodyDepositStatus = (typeof CUSTODY_DEPOSIT_STATUSES)[number];

export interface CustodyDepositState {
  readonly tenantId: string;
  readonly accountId: string;
  /** Natural: `<network>:<tx hash>:<log index>`. */
  readonly depositId: string;
  readonly blockchain: CustodyBlockchain;
  readonly network: string;
  readonly currency: CurrencyCode;
  readonly amount: Decimal;
  readonly address: string;
  readonly txHash: string;
  readonly blockNumber: number;
  readonly blockHash: string;
  readonly confirmations: number;
  readonly status: CustodyDepositStatus;
  readonly detectedAt: string;
  readonly creditedAt: string | null;
  readonly sweepTxHash: string | null;
  /**
   * The funds stay at the account's own address (Solana: the address is the account's key), so `credited` is
   * final: no sweep is asked for. Absent: swept into the treasury (EVM and TRON forwarders).
   */
  readonly heldAtAddress?: boolean;
  readonly updatedAt: string;
  readonly version: number;
}

export type CustodyDepositFact =
  | { readonly kind: 'confirmations'; readonly confirmations: number; readonly needed: number }
  | { readonly kind: 'reorged' }
  | { readonly kind: 'sweep_started' }
  | { readonly kind: 'swept'; readonly txHash: string }
  | { readonly kind: 'sweep_failed' };

export interface CustodyDepositChange {
  readonly state: CustodyDepositState;
  readonly events: readonly EventDraft[];
  /** The account's credit, posted with the change (its id makes it happen once). */
  readonly entry: { readonly entryId: string; readonly entry: EntryDraft } | null;
}

/** Scanned deposits still followed: confirmations counted, or a sweep to ask for or to hear of. */
export const isOpenDeposit = (s: CustodyDepositStatus): boolean => s === 'confirming' || s === 'credited' || s === 'sweeping';

/** Counting its confirmations (its block re-checked each time): not credited yet. */
export const isConfirmingDeposit = (d: Pick<CustodyDepositState, 'status'>): boolean => d.status === 'confirming';
/** Credited to its account. */
export const isCreditedDeposit = (d: Pick<CustodyDepositState, 'status'>): boolean => d.status === 'credited';
/** Credited, its funds still at a forwarder: a sweep into the treasury is to be asked for. */
export const awaitsSweep = (d: Pick<CustodyDepositState, 'status' | 'heldAtAddress'>): boolean => isCreditedDeposit(d) && d.heldAtAddress !== true;
/** Its sweep was asked for: the chain-tx engine's result settles it. */
export const isSweepingDeposit = (d: Pick<CustodyDepositState, 'status'>): boolean => d.status === 'sweeping';

/** A deposit still in its network's work queue: open, unless credited where it stays (nothing left to do). */
export const isFollowedDeposit = (d: Pick<CustodyDepositState, 'status' | 'heldAtAddress'>): boolean =>
  isOpenDeposit(d.status) && !(d.heldAtAddress === true && d.status === 'credited');

const depositPayload = (d: CustodyDepositState, previous: CustodyDepositStatus | null) => ({
  deposit_id: d.depositId,
  account_id: d.accountId,
  blockchain: d.blockchain,
  token: CUSTODY_TOKEN,
  amount: amountText(d.amount, d.currency, 'currency'),
  address: d.address,
  transaction_hash: d.txHash,
  confirmations: d.confirmations,
  status: d.status,
  previous_status: previous,
  credited_at: d.creditedAt,
});

/** `custody_deposit_update` (envelope A, the tenant's default URL) on each status a merchant acts on. */
const announce = (d: CustodyDepositState, previous: CustodyDepositStatus | null): EventDraft =>
  eventDraft(EVENTS.custodyDepositUpdate, `status:${d.status}`, depositPayload(d, previous));

export function openDeposit(
  input: Omit<CustodyDepositState, 'status' | 'creditedAt' | 'sweepTxHash' | 'updatedAt' | 'version' | 'detectedAt'>,
  now: Date,
): CustodyDepositChange {
  const at = now.toISOString();
  const state: CustodyDepositState = { ...input, status: 'confirming', detectedAt: at, creditedAt: null, sweepTxHash: null, updatedAt: at, version: 0 };
  return { state, events: [announce(state, null)], entry: null };
}

function refuseDeposit(d: CustodyDepositState, fact: CustodyDepositFact): never {
  throw new ConflictError(`Cannot apply ${fact.kind} to a ${d.status} custody deposit.`, { status: d.status, action: fact.kind });
}

export function depositTransition(d: CustodyDepositState, fact: CustodyDepositFact, now: Date): CustodyDepositChange {
  const at = now.toISOString();
  const moved = (status: CustodyDepositStatus, extra: Partial<CustodyDepositState> = {}): CustodyDepositState => ({ ...d, ...extra, status, updatedAt: at });
  switch (fact.kind) {
    case 'confirmations': {
      if (d.status !== 'confirming') refuseDeposit(d, fact);
      if (fact.confirmations < fact.needed) return { state: moved('confirming', { confirmations: fact.confirmations }), events: [], entry: null };
      const state = moved('credited', { confirmations: fact.confirmations, creditedAt: at });
      const entry = creditEntry({
        type: 'custody_deposit',
        account: custodyAccount(d.accountId),
        currency: d.currency,
        amount: d.amount,
        reference: { kind: 'custody_deposit', id: d.depositId },
        metadata: { tx_hash: d.txHash, network: d.network },
      });
      return { state, events: [announce(state, d.status)], entry: { entryId: `custody_deposit:${d.depositId}`, entry } };
    }
    case 'reorged': {
      if (d.status !== 'confirming') refuseDeposit(d, fact);
      const state = moved('dropped');
      return { state, events: [announce(state, d.status)], entry: null };
    }
    case 'sweep_started':
      // Funds held at the account's own address have nowhere to be swept: credited is their end.
      if (d.status !== 'credited' || d.heldAtAddress === true) refuseDeposit(d, fact);
      return { state: moved('sweeping'), events: [], entry: null };
    case 'swept':
      if (d.status !== 'sweeping') refuseDeposit(d, fact);
      return { state: moved('swept', { sweepTxHash: fact.txHash }), events: [], entry: null };
    case 'sweep_failed':
      if (d.status !== 'sweeping') refuseDeposit(d, fact);
      return { state: moved('credited'), events: [], entry: null };
  }
}

/** The sweep reference of a deposit (the chain-tx engine's idempotency key and how its result finds it). */
export const custodySweepReference = (d: Pick<CustodyDepositState, 'tenantId' | 'depositId'>): string => `custody:${d.tenantId}:${d.depositId}`;
export function custodySweepOf(reference: string): { tenantId: string; depositId: string } | null {
  const m = /^custody:([^:]+):(.+)$/.exec(reference);
  return m ? { tenantId: m[1] ?? '', depositId: m[2] ?? '' } : null;
}

/* --------------------------------------------------------------------------------------------------- withdrawals */

/** The smallest custody withdrawal per chain, in USDT (spec section 8's typical minimums). */
export const CUSTODY_MINIMUMS: Readonly<Record<CustodyBlockchain, Decimal>> = { ETH: '10', TRX: '1', BSC: '5', SOL: '1' };

/**
 * A tenant's custody withdrawal review policy, set by the operator: a withdrawal above `threshold` (USDT), one that
 * would take its account's rolling 24-hour total over `threshold`, or one to a destination outside `allowlist` when
 * one is set, waits for the operator's decision.
 */
export interface CustodyReviewPolicy {
  readonly threshold: Decimal | null;
  readonly allowlist: readonly string[] | null;
}

export const NO_REVIEW_POLICY: CustodyReviewPolicy = { threshold: null, allowlist: null };

/**
 * How long a withdrawal counts in its account's rolling total: what an account sends without review within any
 * 24 hours stays within the threshold, however it is split.
 */
export const ROLLING_WINDOW_MS = 24 * 3600_000;

/** Why a custody withdrawal waits for the operator. */
export const REVIEW_REASONS = ['amount_over_threshold', 'rolling_total_over_threshold', 'destination_not_allowed'] as const;
export type ReviewReason = (typeof REVIEW_REASONS)[number];

/**
 * Why the policy holds a withdrawal of `amount` to `destination` (none: it goes through). `rollingTotal` is what the
 * account sent without review in the last 24 hours (USDT, every chain): a withdrawal that would take it over the
 * threshold waits too (`rolling_total_over_threshold`), so five of 99 pass a threshold of 100 no more than one of 150.
 * Only a withdrawal that goes through unreviewed adds to the total: one held for review is the operator's to pass,
 * approved or rejected (see docs/custody.md).
 */
export function reviewReasons(
  policy: CustodyReviewPolicy,
  withdrawal: { readonly amount: Decimal; readonly rollingTotal: Decimal; readonly destination: string },
  sameAddress: (a: string, b: string) => boolean,
): ReviewReason[] {
  const reasons: ReviewReason[] = [];
  const { amount, rollingTotal, destination } = withdrawal;
  if (policy.threshold !== null && gt(amount, policy.threshold)) reasons.push('amount_over_threshold');
  else if (policy.threshold !== null && gt(add(rollingTotal, amount), policy.threshold)) reasons.push('rolling_total_over_threshold');
  if (policy.allowlist !== null && !policy.allowlist.some((allowed) => sameAddress(allowed, destination))) reasons.push('destination_not_allowed');
  return reasons;
}

/**
 * The room the threshold leaves an account's rolling total for an unreviewed withdrawal of `amount`: what the total
 * may be at most before it (null: no threshold, no bound).
 */
export const rollingRoom = (policy: CustodyReviewPolicy, amount: Decimal): Decimal | null => (policy.threshold === null ? null : sub(policy.threshold, amount));
