import type { CurrencyCode } from './currencies.js';
import { isCurrencyCode } from './currencies.js';
import { GatewayError } from './errors.js';
import type { CustomerAccount, EntryDraft } from './ledger.js';
import { custodyAccount, transferEntry } from './ledger.js';
import type { Decimal } from './money.js';

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

export const ACCOUNT_TYPES = ['standard', 'hot', 'cold'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export const ACCOUNT_STATUSES = ['active', 'inactive'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

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
