import type { Clock } from '../../domain/clock.js';
import type {
  CustodyAccountState,
  CustodyAddressState,
  CustodyBlockchain,
  CustodyDepositChange,
  CustodyDepositState,
  CustodyTransferState,
} from '../../domain/custody.js';
import type { ServedNetworks } from '../../domain/currencies.js';
import type { CustodyReviewPolicy } from '../../domain/custody.js';
import type { EntryDraft } from '../../domain/ledger.js';
import type { WithdrawalFeeDeps } from '../withdrawals/network-fees.js';
import type { WithdrawalRepository } from '../withdrawals/ports.js';
import type { LedgerPort } from '../ledger/ports.js';
import type { RatesDeps } from '../rates/ports.js';

/**
 * What the custody use cases need from outside. `shared/runtime/custody.ts` builds the real ones
 * (shared/store/custody.ts, the ledger, the forwarder factories); tests pass their own.
 */

export interface CustodyAccountRepository {
  /** The tenant's account; null for none (or another tenant's). */
  get(tenantId: string, accountId: string): Promise<CustodyAccountState | null>;
  /** Stores a new account (version 1). */
  create(account: CustodyAccountState): Promise<CustodyAccountState>;
  /** Accounts by creation, oldest first, after `skip`, at most `limit`, optionally of one status. */
  list(tenantId: string, page: { readonly skip: number; readonly limit: number; readonly status?: string }): Promise<readonly CustodyAccountState[]>;
}

export interface CustodyAddressRepository {
  get(tenantId: string, accountId: string, blockchain: CustodyBlockchain): Promise<CustodyAddressState | null>;
  /** Stores the address unless the account has one on that chain; resolves to the stored one and whether it is new. */
  create(address: CustodyAddressState, family: string): Promise<{ readonly address: CustodyAddressState; readonly created: boolean }>;
  list(tenantId: string, accountId: string): Promise<readonly CustodyAddressState[]>;
}

export interface CustodyDepositRepository {
  get(tenantId: string, depositId: string): Promise<CustodyDepositState | null>;
  /** Records a newly seen deposit once, with its events and history record: false when it was recorded before. */
  record(change: CustodyDepositChange, now: Date): Promise<boolean>;
  /** Saves a change with its credit, events and history record, conditioned on the version read (ConflictError). */
  save(previous: CustodyDepositState, change: CustodyDepositChange, now: Date): Promise<CustodyDepositState>;
  /** The network's deposits still followed (confirming, credited, sweeping), oldest first. */
  open(network: string): Promise<readonly CustodyDepositState[]>;
}

export interface CustodyTransferRepository {
  /** The transfer with its ledger entry, in ONE transaction (InsufficientBalanceError when the source lacks funds). */
  commit(transfer: CustodyTransferState, entry: EntryDraft): Promise<void>;
}

/**
 * The custody provider: where an account's addresses come from. The built-in one derives them from the
 * gateway's forwarder factories (ETH, BSC, TRX) and its Solana signer; an external custodian plugs in here.
 * Any failure behind it is a CustodyProviderError (500 `custody_provider_error`), with nothing stored.
 */
export interface CustodyProvider {
  readonly name: string;
  /** The account's deposit address on a chain, and the address family the scanners match it in. */
  depositAddress(tenantId: string, accountId: string, blockchain: CustodyBlockchain): Promise<{ readonly address: string; readonly family: string }>;
}

/** The operator's review policy per tenant (shared/domain/custody.ts). */
export interface CustodyPolicyRepository {
  /** The tenant's policy; no review when none was set. */
  get(tenantId: string): Promise<CustodyReviewPolicy>;
  put(tenantId: string, policy: CustodyReviewPolicy): Promise<void>;
}

/** What custody withdrawals need besides the accounts: the withdrawals' own repository, fees and served networks. */
export interface CustodyWithdrawalPorts extends Pick<CustodyPorts, 'accounts' | 'clock'> {
  readonly withdrawals: WithdrawalRepository;
  readonly ledger: Pick<LedgerPort, 'balance'>;
  readonly fees: WithdrawalFeeDeps;
  readonly served: ServedNetworks;
  readonly policies: CustodyPolicyRepository;
  readonly settings: { readonly allowLoopbackCallbacks: boolean };
}

export interface CustodyPorts {
  readonly accounts: CustodyAccountRepository;
  readonly addresses: CustodyAddressRepository;
  readonly transfers: CustodyTransferRepository;
  readonly ledger: Pick<LedgerPort, 'balances'>;
  readonly providers: Readonly<Record<string, CustodyProvider>>;
  readonly rates: RatesDeps;
  readonly clock: Clock;
}
