import type { Clock } from '../../domain/clock.js';
import type { TransferChange, TransferStatus, TransferType, WalletRef, WalletState, WalletTransferState } from '../../domain/wallets.js';
import type { EventDraft } from '../../domain/events.js';
import type { LedgerPort } from '../ledger/ports.js';
import type { WriteItem } from '../ports.js';

/**
 * What the wallet use cases need from outside, as ports. `shared/runtime/wallets.ts` builds the real ones
 * (shared/store/wallets.ts); tests pass `test/support/fakes/wallets.ts`.
 */

/** Looks a wallet up by its `wallet_id` (a payment's `wallet_id`, a withdrawal's `account_id`). */
export interface WalletDirectory {
  exists(tenantId: string, walletId: string): Promise<boolean>;
}

export interface WalletPage {
  readonly wallets: readonly WalletState[];
  /** Every wallet of the tenant (a counter kept in the create and delete transactions). */
  readonly total: number;
}

export interface WalletRepository {
  /** The tenant's wallet named by its integer id or uuid; null for none (or another tenant's). */
  get(tenantId: string, ref: WalletRef): Promise<WalletState | null>;
  byExternalId(tenantId: string, externalId: string): Promise<WalletState | null>;
  /**
   * Stores a new wallet with the next integer id of its tenant, its external-id guard (ConflictError
   * `external_id` taken) and its count, with its events and `alsoWrite` (the Idempotency-Key record), in ONE
   * transaction. Returns it as stored.
   */
  create(
    wallet: WalletState,
    events: (stored: WalletState) => readonly EventDraft[],
    now: Date,
    alsoWrite?: (stored: WalletState) => readonly WriteItem[],
  ): Promise<WalletState>;
  /** Saves changed settings, conditioned on the version read (the external-id guard moves with it). */
  save(previous: WalletState, next: WalletState, now: Date): Promise<WalletState>;
  /** Removes the wallet, its number and guard, and counts it out, conditioned on the version read. */
  remove(wallet: WalletState): Promise<void>;
  /** Wallets by id, ascending. */
  list(tenantId: string, page: { readonly limit: number; readonly offset: number }): Promise<WalletPage>;
  /** Every wallet of a tenant (the balances view). */
  all(tenantId: string): Promise<readonly WalletState[]>;
}

export interface TransferFilter {
  readonly walletId?: string;
  readonly status?: TransferStatus;
  readonly type?: TransferType;
  readonly currency?: string;
}

export interface WalletTransferRepository {
  get(tenantId: string, transferId: string): Promise<WalletTransferState | null>;
  /**
   * Records the transfer with its hold on the source (InsufficientBalanceError when it cannot be covered), its
   * events and `alsoWrite` in ONE transaction. Returns it as stored.
   */
  create(change: TransferChange, now: Date, alsoWrite?: (stored: WalletTransferState) => readonly WriteItem[]): Promise<WalletTransferState>;
  /**
   * Saves a change with its ledger entry and events in ONE transaction, conditioned on the version read; a
   * completion also on its wallet still existing (WalletGoneError).
   */
  save(previous: WalletTransferState, change: TransferChange, now: Date): Promise<WalletTransferState>;
  /** The tenant's transfers, newest first (a per-tenant index, never a Scan). */
  list(tenantId: string, filter: TransferFilter): Promise<readonly WalletTransferState[]>;
}

export interface WalletSettings {
  /** Plain-HTTP loopback callback URLs (the local stack only). */
  readonly allowLoopbackCallbacks: boolean;
}

export interface WalletsPorts {
  readonly wallets: WalletRepository;
  readonly transfers: WalletTransferRepository;
  readonly ledger: Pick<LedgerPort, 'balance' | 'balances'>;
  readonly settings: WalletSettings;
  readonly clock: Clock;
}
