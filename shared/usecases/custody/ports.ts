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
import type { Decimal } from '../../domain/money.js';
import type { WriteItem } from '../ports.js';
import type { WithdrawalFeeDeps } from '../withdrawals/network-fees.js';
import type { WithdrawalRepository } from '../withdrawals/ports.js';
import type { LedgerPort } from '../ledger/ports.js';
import type { RatesDeps } from '../rates/ports.js';
import type { AddressDepositSource, DepositSource, RecipientTransferReader } from '../deposits/ports.js';
import type { CurrencyCode, CurrencyDefinition } from '../../domain/currencies.js';

/**
 * What the custody use cases need from outside. `shared/runtime/custody.ts` builds the real ones
 * (shared/store/custody.ts, the ledger, the forwarder factories); tests pass their own.
 */

export interface CustodyAccountRepository {
  /** The tenant's account; null for none (or another tenant's). */
  get(tenantId: string, accountId: string): Promise<CustodyAccountState | null>;
  /** Stores a new account (version 1) with `alsoWrite` (the Idempotency-Key record) in ONE transaction. */
  create(account: CustodyAccountState, alsoWrite?: (stored: CustodyAccountState) => readonly WriteItem[]): Promise<CustodyAccountState>;
  /** Accounts by creation, oldest first, after `skip`, at most `limit`, optionally of one status. */
  list(tenantId: string, page: { readonly skip: number; readonly limit: number; readonly status?: string }): Promise<readonly CustodyAccountState[]>;
}

export interface CustodyAddressRepository {
  get(tenantId: string, accountId: string, blockchain: CustodyBlockchain): Promise<CustodyAddressState | null>;
  /** Stores the address unless the account has one on that chain; resolves to the stored one and whether it is new. */
  create(address: CustodyAddressState, family: string): Promise<{ readonly address: CustodyAddressState; readonly created: boolean }>;
  list(tenantId: string, accountId: string): Promise<readonly CustodyAddressState[]>;
  /** Every tenant's addresses on a chain whose addresses are polled one by one (SOL), oldest first. */
  watched(blockchain: CustodyBlockchain): Promise<readonly CustodyAddressState[]>;
  /** Moves the address's `historyCursor` from the one it was read with to `to`; false when it moved meanwhile. */
  moveCursor(address: CustodyAddressState, to: string): Promise<boolean>;
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
  /**
   * The transfer with its ledger entry and `alsoWrite` (the Idempotency-Key record), in ONE transaction
   * (InsufficientBalanceError when the source lacks funds).
   */
  commit(transfer: CustodyTransferState, entry: EntryDraft, alsoWrite?: readonly WriteItem[]): Promise<void>;
}

/**
 * The custody provider: where an account's addresses come from. The built-in one derives them from the
 * gateway's forwarder factories (ETH, BSC, TRX) and its Solana signer; an external custodian plugs in here.
 * Any failure behind it is a CustodyProviderError (500 `custody_provider_error`), with nothing stored.
 */
export interface CustodyProvider {
  readonly name: string;
  /**
   * The account's deposit address on a chain, the address family the scanners match it in, and the key it was
   * made with when it is one (SOL: a new KMS key, kept with the address so that withdrawals can sign).
   */
  depositAddress(tenantId: string, accountId: string, blockchain: CustodyBlockchain): Promise<ProvidedAddress>;
  /**
   * Frees what `depositAddress` made for an address that was never stored (a concurrent call stored the
   * account's first): the built-in provider schedules the unused key's deletion. Best effort.
   */
  abandon?(address: ProvidedAddress): Promise<void>;
}

export interface ProvidedAddress {
  readonly address: string;
  readonly family: string;
  readonly keyId?: string;
}

/** The operator's review policy per tenant (shared/domain/custody.ts). */
export interface CustodyPolicyRepository {
  /** The tenant's policy; no review when none was set. */
  get(tenantId: string): Promise<CustodyReviewPolicy>;
  put(tenantId: string, policy: CustodyReviewPolicy): Promise<void>;
}

/**
 * A custody account's rolling total: the USDT it sent without review in the last 24 hours, every chain together
 * (shared/store/custody-rolling.ts keeps it in ten-minute parts).
 */
export interface CustodyRollingTotals {
  /** The account's total at `now`, as read, with the writes that add a withdrawal to it. */
  read(tenantId: string, accountId: string, now: Date): Promise<RollingTotal>;
}

export interface RollingTotal {
  /** USDT sent without review within the window (at least the last 24 hours). */
  readonly total: Decimal;
  /**
   * The writes that add `amount` to the total inside the withdrawal's own transaction. With `room` (the threshold less
   * the amount) they are conditioned on the total being still within it, so that concurrent withdrawals cannot both
   * pass: the transaction is then refused (`WithdrawalCreation.conditions`), to be read and decided again.
   */
  add(amount: Decimal, room: Decimal | null): readonly WriteItem[];
}

/** What custody withdrawals need besides the accounts: the withdrawals' own repository, fees and served networks. */
export interface CustodyWithdrawalPorts extends Pick<CustodyPorts, 'accounts' | 'clock'> {
  readonly withdrawals: WithdrawalRepository;
  readonly ledger: Pick<LedgerPort, 'balance'>;
  readonly fees: WithdrawalFeeDeps;
  readonly served: ServedNetworks;
  readonly policies: CustodyPolicyRepository;
  /** The accounts' rolling totals the review threshold also applies to. */
  readonly rollingTotals: CustodyRollingTotals;
  /** The current rates: the tenant's withdrawal limits are in USD. */
  readonly rates: RatesDeps;
  readonly settings: { readonly allowLoopbackCallbacks: boolean };
}

/**
 * A custody network's chain as sync reads it: the scanner's deposit source (its head, its blocks for the
 * confirmations' re-check, its address form) and one address's incoming transfers. Adapters:
 * shared/chain/evm/deposit-source.ts, shared/chain/tron/deposit-source.ts.
 */
export type CustodyChainSource = Pick<DepositSource, 'addressForm' | 'head' | 'block' | 'close'> & RecipientTransferReader;

/**
 * The chains custody reads directly (the built-in provider's): sync re-reads an account's addresses, and the
 * Solana poller reads each SOL address's token account history.
 */
export interface CustodyChainPorts {
  /** The chain of a custody EVM or TRON network this deployment serves (the caller closes it); null for none. */
  sourceFor(network: string): CustodyChainSource | null;
  /** The USDT contract (or mint) of a custody currency here; null for none. */
  tokenOf(currency: CurrencyCode): string | null;
  /** Confirmations a deposit of the currency needs (the payments' setting; Solana credits at finality). */
  confirmationsFor(currency: CurrencyDefinition): number;
  /** Sync reads an EVM or TRON address's transfers this many blocks back. */
  readonly lookbackBlocks: number;
  /** The SOL addresses' USDT histories (shared/chain/solana/deposit-source.ts); null when Solana is not configured. */
  readonly solana: AddressDepositSource | null;
}

/**
 * A custody SOL address's token transfers, signed and followed (custody's SOL withdrawals): the adapter
 * (shared/chain/solana/transfers.ts) holds the RPC, the USDT mint, the platform's fee payer and the addresses' keys.
 */
export interface SolanaTransferPort {
  /** Base units of the USDT held by `owner` (its associated token account; 0 when it has none). */
  tokenBalance(owner: string): Promise<bigint>;
  /**
   * A transfer of `amount` base units of USDT from `owner` (signed with its key `keyId`) to `recipient` (its token
   * account created if missing), the platform paying the fees, on a fresh blockhash: signed, not sent.
   */
  signTransfer(input: SolanaTransferInput): Promise<SignedSolanaTransfer>;
  /** Sends signed bytes: `stale` when the node no longer knows their blockhash (they will expire); throws on failure. */
  send(wire: string): Promise<'sent' | 'stale'>;
  /** What became of a transfer's attempts, judged together (at most one of them can land). */
  fate(attempts: readonly Pick<SignedSolanaTransfer, 'signature' | 'lastValidBlockHeight'>[]): Promise<SolanaTransferFate>;
}

export interface SolanaTransferInput {
  readonly owner: string;
  readonly keyId: string;
  readonly recipient: string;
  readonly amount: bigint;
  readonly decimals: number;
}

export interface SignedSolanaTransfer {
  readonly signature: string;
  /** The last block height its blockhash lets it land in. */
  readonly lastValidBlockHeight: number;
  /** The wire transaction, base64: what is sent, and sent again while it may still land. */
  readonly wire: string;
}

export type SolanaTransferFate =
  /** One attempt is on chain: `final` once it can no longer be rolled back; `error` (JSON) when it failed there. */
  | { readonly kind: 'landed'; readonly signature: string; readonly final: boolean; readonly error: string | null }
  /** None is on chain yet, and one may still land: send the newest again, sign nothing new. */
  | { readonly kind: 'pending' }
  /** None is on chain and none can ever land (a finalized block is past each one's last valid height): sign anew. */
  | { readonly kind: 'expired' };

export interface CustodyPorts {
  readonly accounts: CustodyAccountRepository;
  readonly addresses: CustodyAddressRepository;
  readonly transfers: CustodyTransferRepository;
  readonly ledger: Pick<LedgerPort, 'balances'>;
  readonly providers: Readonly<Record<string, CustodyProvider>>;
  readonly rates: RatesDeps;
  readonly clock: Clock;
  /** Deposits and the chains, for sync. */
  readonly deposits: CustodyDepositRepository;
  readonly chains: CustodyChainPorts;
}
