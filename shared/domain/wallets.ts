import { amountText } from './amounts.js';
import type { CurrencyCode } from './currencies.js';
import { ConflictError, NotFoundError, ValidationError } from './errors.js';
import type { EventDraft, EventPayload, OutboxEvent } from './events.js';
import { EVENTS, eventDraft } from './events.js';
import type { Balance, CustomerAccount, EntryDraft, EntryReference } from './ledger.js';
import { holdEntry, MAIN, pocket, totalOf, walletAccount } from './ledger.js';
import type { Decimal } from './money.js';
import { isZero } from './money.js';

/**
 * Wallets (sub-accounts, spec 2.6): a named ledger account `wallet:<wallet_id>` inside one tenant, with a per-tenant
 * integer `id` besides its uuid `wallet_id`, and the transfers that move money between it and the main account.
 * Pure: records, their transitions and the events and ledger entries a change commits with.
 */

export interface WalletState {
  readonly tenantId: string;
  /** Per-tenant sequence number, allocated in the creating transaction. */
  readonly id: number;
  readonly walletId: string;
  readonly name: string;
  readonly externalId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
  /**
   * Ledger entries posted to the wallet's balances so far, as read with the wallet (the ledger counts them on
   * the wallet's record, outside its version). A deletion holds only while no entry came after it was read.
   */
  readonly ledgerEntries?: number;
}

export const WALLET_NAME_MAX = 100;
export const EXTERNAL_ID_MAX = 100;

/** A wallet as the merchant names it in a path or body: its integer `id` or its uuid `wallet_id`. */
export type WalletRef = { readonly kind: 'id'; readonly id: number } | { readonly kind: 'uuid'; readonly walletId: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The reference `text` names, or null when it names no wallet (neither a positive integer nor a uuid). */
export function walletRef(text: string): WalletRef | null {
  const t = text.trim();
  if (/^[1-9]\d{0,14}$/.test(t)) return { kind: 'id', id: Number(t) };
  if (UUID.test(t)) return { kind: 'uuid', walletId: t.toLowerCase() };
  return null;
}

export const accountOf = (wallet: Pick<WalletState, 'walletId'>): CustomerAccount => walletAccount(wallet.walletId);

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw ValidationError.field('name', 'This field may not be blank.');
  if (trimmed.length > WALLET_NAME_MAX) throw ValidationError.field('name', `At most ${WALLET_NAME_MAX} characters.`);
  return trimmed;
}

function checkExternalId(externalId: string | null | undefined): string | null {
  if (externalId === undefined || externalId === null) return null;
  const trimmed = externalId.trim();
  if (trimmed.length === 0) return null;
  if (trimmed.length > EXTERNAL_ID_MAX) throw ValidationError.field('external_id', `At most ${EXTERNAL_ID_MAX} characters.`);
  return trimmed;
}

/** A new wallet (its integer id is the repository's to allocate: 0 here). */
export function newWallet(input: { tenantId: string; walletId: string; name: string; externalId?: string | null }, now: Date): WalletState {
  const at = now.toISOString();
  return {
    tenantId: input.tenantId,
    id: 0,
    walletId: input.walletId,
    name: checkName(input.name),
    externalId: checkExternalId(input.externalId),
    createdAt: at,
    updatedAt: at,
    version: 0,
  };
}

/** The settings a PATCH may change. */
export function updateWallet(wallet: WalletState, change: { name?: string; externalId?: string | null }, now: Date): WalletState {
  return {
    ...wallet,
    ...(change.name !== undefined ? { name: checkName(change.name) } : {}),
    ...(change.externalId !== undefined ? { externalId: checkExternalId(change.externalId) } : {}),
    updatedAt: now.toISOString(),
  };
}

/** A change that needs the wallet found it deleted meanwhile (a transfer's settlement then fails instead). */
export class WalletGoneError extends NotFoundError {
  constructor(walletId: string) {
    super(`The wallet ${walletId} no longer exists.`, { wallet_id: walletId });
    this.name = 'WalletGoneError';
  }
}

/** A wallet may go only when every balance row of it (owned, pending and held) is zero. */
export function checkDeletable(wallet: WalletState, balances: readonly { currency: string; balance: Balance }[]): void {
  const funded = balances.filter((b) => !isZero(b.balance.amount) || !isZero(b.balance.pending) || !isZero(b.balance.locked));
  if (funded.length > 0) {
    throw new ConflictError(
      `The wallet ${wallet.walletId} still holds funds in ${funded.map((b) => b.currency).join(', ')}; move them out before deleting it.`,
      {
        wallet_id: wallet.walletId,
        currencies: funded.map((b) => b.currency),
      },
    );
  }
}

/** A wallet's balance row in one currency after a change, as the table's stream reports it, and what changed it. */
export interface WalletBalanceChange {
  readonly tenantId: string;
  readonly walletId: string;
  readonly currency: string;
  /** The row after the change. */
  readonly balance: Balance;
  /** What the change added to each pocket (negative for what it took). */
  readonly change: Balance;
  readonly entryId: string;
  readonly entryType: string;
  readonly reference: EntryReference | null;
  readonly at: string;
}

/** A balance in the balance view's terms, spelled as the balance view spells it (shared/domain/amounts.ts). */
const shown = (b: Balance, currency: string) => {
  const text = (value: Decimal) => amountText(value, currency, 'currency');
  return { amount: text(totalOf(b)), pending_amount: text(b.pending), available_balance: text(b.amount), locked_amount: text(b.locked) };
};

/**
 * `wallet.balance_changed` (spec 6.2): one per journal entry that changed a wallet's balance row, whatever the
 * cause (a payment credited, a withdrawal held, paid or returned, a transfer, an adjustment), with the row's new
 * amounts in the balance view's terms and what the entry changed. Its id is natural (entry and wallet), so a
 * stream record read twice gives the same event and the webhook pipeline sends it once.
 */
export function walletBalanceChangedEvent(c: WalletBalanceChange): OutboxEvent<EventPayload<typeof EVENTS.walletBalanceChanged>> {
  return {
    eventId: `wallet_balance:${c.entryId}:${c.walletId}`,
    tenantId: c.tenantId,
    type: EVENTS.walletBalanceChanged,
    occurredAt: c.at,
    payload: {
      wallet_id: c.walletId,
      currency: c.currency,
      ...shown(c.balance, c.currency),
      change: shown(c.change, c.currency),
      cause: c.entryType,
      reference: c.reference === null ? null : { kind: c.reference.kind, id: c.reference.id },
      entry_id: c.entryId,
    },
  };
}

/** `wallet.created` (spec 6.2) of a new wallet. */
export const walletCreatedEvent = (wallet: WalletState): EventDraft =>
  eventDraft(EVENTS.walletCreated, 'created', {
    wallet_id: wallet.walletId,
    id: wallet.id,
    name: wallet.name,
    external_id: wallet.externalId,
    created: wallet.createdAt,
  });

/* ---------------------------------------------------------------- transfers */

/** `to_sub`: main -> wallet (`transfer-to-user`); `to_master`: wallet -> main (`withdraw-to-master`). */
export const TRANSFER_TYPES = ['to_sub', 'to_master'] as const;
export type TransferType = (typeof TRANSFER_TYPES)[number];
export const TRANSFER_STATUSES = ['accepted', 'completed', 'failed'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];
/** Accepted, its hold taken: the worker completes it or fails it (`settleTransfer`). */
export const awaitsSettlement = (t: { readonly status: TransferStatus }): boolean => t.status === 'accepted';

export interface WalletTransferState {
  readonly id: string;
  readonly tenantId: string;
  readonly type: TransferType;
  readonly status: TransferStatus;
  /** The wallet's uuid (the other side is the main account). */
  readonly walletId: string;
  readonly currency: CurrencyCode;
  readonly amount: Decimal;
  readonly callbackUrl: string | null;
  readonly failureReason: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
}

export const sourceOf = (t: Pick<WalletTransferState, 'type' | 'walletId'>): CustomerAccount => (t.type === 'to_sub' ? MAIN : walletAccount(t.walletId));
export const destinationOf = (t: Pick<WalletTransferState, 'type' | 'walletId'>): CustomerAccount => (t.type === 'to_sub' ? walletAccount(t.walletId) : MAIN);

/** The transfer's envelope-A event (its callback_url) name. */
export const TRANSFER_STATUS_EVENT = EVENTS.walletTransferStatusUpdate;

export interface TransferChange {
  readonly state: WalletTransferState;
  readonly events: readonly EventDraft[];
  /** The ledger entry committed with the change and its natural id. */
  readonly entry: { readonly entryId: string; readonly entry: EntryDraft };
}

const transferPayload = (t: WalletTransferState, previous: TransferStatus | null) => ({
  transfer_id: t.id,
  status: t.status,
  previous_status: previous,
  transfer_type: t.type,
  wallet_id: t.walletId,
  currency: t.currency,
  amount: amountText(t.amount, t.currency, 'currency'),
  failure_reason: t.failureReason,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
  callback_url: t.callbackUrl,
});

/**
 * The worker's `wallet_transfer.accepted` event of an accepted transfer, as its acceptance announced it (same key,
 * same payload): the reconciler sends it again when the first message was lost.
 */
export const settlementRequest = (t: WalletTransferState): EventDraft<typeof EVENTS.walletTransferAccepted> =>
  eventDraft(EVENTS.walletTransferAccepted, 'settle', transferPayload({ ...t, status: 'accepted', failureReason: null, updatedAt: t.createdAt }, null));

/** Accepting a transfer: it is recorded and the amount held on the source, in ONE transaction. */
export function acceptTransfer(
  input: Pick<WalletTransferState, 'id' | 'tenantId' | 'type' | 'walletId' | 'currency' | 'amount' | 'callbackUrl'>,
  now: Date,
): TransferChange {
  const at = now.toISOString();
  const state: WalletTransferState = { ...input, status: 'accepted', failureReason: null, createdAt: at, updatedAt: at, version: 0 };
  const events: EventDraft[] = [eventDraft(EVENTS.walletTransferStatusUpdate, 'accepted', transferPayload(state, null)), settlementRequest(state)];
  return {
    state,
    events,
    entry: {
      entryId: `wallet_transfer:${state.id}:hold`,
      entry: holdEntry({
        account: sourceOf(state),
        currency: state.currency,
        amount: state.amount,
        type: 'transfer',
        reference: { kind: 'wallet_transfer', id: state.id },
      }),
    },
  };
}

/**
 * Settling an accepted transfer: ONE entry releases the hold and moves the amount to the destination
 * (`completed`), or only releases it when the destination is gone (`failed`).
 */
export function settleTransfer(
  t: WalletTransferState,
  outcome: { readonly ok: true } | { readonly ok: false; readonly reason: string },
  now: Date,
): TransferChange {
  if (t.status !== 'accepted') throw new ConflictError(`The transfer ${t.id} is ${t.status}.`, { transfer_id: t.id, status: t.status });
  const state: WalletTransferState = {
    ...t,
    status: outcome.ok ? 'completed' : 'failed',
    failureReason: outcome.ok ? null : outcome.reason,
    updatedAt: now.toISOString(),
  };
  const source = sourceOf(t);
  const legs = [{ from: pocket(source, 'locked'), to: pocket(outcome.ok ? destinationOf(t) : source), amount: t.amount }];
  const events: EventDraft[] = [eventDraft(EVENTS.walletTransferStatusUpdate, state.status, transferPayload(state, t.status))];
  return {
    state,
    events,
    entry: {
      entryId: `wallet_transfer:${t.id}:settle`,
      entry: { type: 'transfer', currency: t.currency, legs, reference: { kind: 'wallet_transfer', id: t.id } },
    },
  };
}
