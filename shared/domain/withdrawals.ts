import { amountText } from './amounts.js';
import type { CurrencyCode, CurrencyDefinition } from './currencies.js';
import { NETWORKS } from './currencies.js';
import { custodyBlockchainOf } from './custody.js';
import { ConflictError } from './errors.js';
import type { WithdrawalTotals } from './fees.js';
import type { EventType } from './events.js';
import { EVENTS, withdrawalFamilyEvent } from './events.js';
import type { CustomerAccount, EntryDraft, EntryReference, Leg } from './ledger.js';
import { custodyAccount, EXTERNAL, FEES, holdEntry, MAIN, NETWORK_FEES, pocket, releaseEntry, walletAccount } from './ledger.js';
import type { Decimal } from './money.js';
import { isPositive, lte, sub } from './money.js';

/**
 * The lifecycle of a withdrawal (spec 3.2), pure: its statuses and guards, its creation, and the transition
 * that turns a withdrawal plus a fact (handed to the chain, confirmed or failed on chain, cancelled) into the
 * new withdrawal, the events it announces and the effects the caller commits with it in ONE transaction
 * (the ledger entry that holds, pays out or returns the funds; the request of its chain transfer).
 * The version is the repository's: it conditions every save on the version read and bumps it.
 *
 * ```
 * (none) --open--> pending --dispatched--> processing --chain_confirmed--> completed
 *                    |  \                      \------chain_failed-----> failed
 *                    |   \--chain_confirmed | chain_failed (staging addresses: no chain transaction)
 *                    \--cancel--> cancelled
 * ```
 */

export const WITHDRAWAL_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'rejected'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];
/** Values the list filter accepts besides the create-flow statuses (spec 3.2); none is ever stored. */
export const LIST_ONLY_STATUSES = ['approved', 'submitted', 'confirmed'] as const;

export interface WithdrawalState {
  readonly id: string;
  readonly tenantId: string;
  readonly status: WithdrawalStatus;
  readonly currency: CurrencyCode;
  readonly network: string;
  readonly token: string;
  /** What the recipient receives. */
  readonly amount: Decimal;
  readonly networkFee: Decimal;
  readonly platformFee: Decimal;
  readonly totalFee: Decimal;
  readonly totalDeducted: Decimal;
  readonly address: string;
  readonly customId: string | null;
  readonly callbackUrl: string | null;
  readonly accountId: string | null;
  readonly priceAmount: Decimal | null;
  readonly priceCurrency: string | null;
  /** A custody account's withdrawal (spec 4.8): the funds come from `custody:<id>` (`accountId` is then null). */
  readonly custodyAccountId?: string | null;
  /** The security review the tenant's policy asked for (custody withdrawals); null or absent when none. */
  readonly review?: WithdrawalReview | null;
  /** What the recipient receives in USD at creation, where a rate was read then (the transaction history). */
  readonly amountUsd?: Decimal | null;
  readonly transactionHash: string | null;
  readonly failureReason: string | null;
  /**
   * Why the batcher last could not hand a pending withdrawal to the chain (a `DISPATCH_REFUSALS` code); null or
   * absent once handed on, or when it never refused.
   */
  readonly dispatchRefusal?: DispatchRefusal | null;
  /**
   * A Solana withdrawal's signed transactions, oldest first, each persisted before it is sent
   * (shared/usecases/custody/solana-withdrawals.ts); a new one only once every earlier one can never land.
   */
  readonly solanaAttempts?: readonly SolanaWithdrawalAttempt[];
  /**
   * The batch payout it was dispatched in (shared/usecases/withdrawals/batch.ts): the batch's chain-tx reference;
   * `single` once it was left to a transfer of its own (its item failed, the batch reverted, or the batch's request
   * does not carry it). Null or absent for a withdrawal sent on its own from the start.
   */
  readonly batch?: WithdrawalBatch | null;
  /**
   * The refund it pays (shared/domain/refunds.ts); null or absent for the tenant's own withdrawals. The refund's hold
   * is this withdrawal's: opened with the refund, spent by its payout, released by its failure or cancel.
   */
  readonly refundId?: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
}

export interface WithdrawalBatch {
  readonly reference: string;
  readonly single: boolean;
}

/** The chain-tx reference a processing withdrawal's transfer is under: its batch's while in one, else its own id. */
export const transferReferenceOf = (w: Pick<WithdrawalState, 'id' | 'batch'>): string => (w.batch && !w.batch.single ? w.batch.reference : w.id);

/** One signed Solana transaction of a withdrawal: its id, the last block height it may land in, its wire bytes. */
export interface SolanaWithdrawalAttempt {
  readonly signature: string;
  readonly lastValidBlockHeight: number;
  /** The wire transaction, base64: what is sent, and sent again while it may still land. */
  readonly wire: string;
  readonly signedAt: string;
}

export interface WithdrawalEvent {
  readonly type: EventType;
  /** Natural key of the event within the withdrawal (its outbox id is `withdrawal:<id>:<key>`). */
  readonly key: string;
  readonly payload: Record<string, unknown>;
}

export function withdrawalPayload(w: WithdrawalState, previous: WithdrawalStatus | null): Record<string, unknown> {
  const shown = (value: Decimal) => amountText(value, w.currency, 'withdrawal');
  return {
    withdrawal_id: w.id,
    status: w.status,
    previous_status: previous,
    amount: shown(w.amount),
    currency: w.currency,
    blockchain: w.network,
    token: w.token,
    address: w.address,
    network_fee: shown(w.networkFee),
    transaction_fee: shown(w.platformFee),
    total_fee: shown(w.totalFee),
    total_deducted: shown(w.totalDeducted),
    transaction_hash: w.transactionHash,
    custom_id: w.customId,
    metadata: { processed_at: w.updatedAt },
  };
}

/**
 * `custody_withdrawal_update` (envelope A, to its callback_url or the tenant's default URL): a custody account's
 * withdrawal as its custody record shows it (`amount` what leaves the account, fees included; `net_amount` what the
 * destination receives), its amounts spelled as every withdrawal's, with its review.
 */
export function custodyWithdrawalPayload(w: WithdrawalState, previous: WithdrawalStatus | null): Record<string, unknown> {
  const shown = (value: Decimal) => amountText(value, w.currency, 'withdrawal');
  return {
    withdrawal_id: w.id,
    account_id: w.custodyAccountId ?? '',
    blockchain: custodyBlockchainOf(w.currency) ?? w.network,
    token: w.token,
    currency: w.currency,
    amount: shown(w.totalDeducted),
    fee: shown(w.totalFee),
    net_amount: shown(w.amount),
    destination_address: w.address,
    status: w.status,
    previous_status: previous,
    review: w.review ? { status: w.review.decision ?? 'awaiting_review', reasons: [...w.review.reasons] } : null,
    transaction_hash: w.transactionHash,
    custom_id: w.customId,
    metadata: { processed_at: w.updatedAt },
  };
}

/**
 * Why the batcher cannot hand a pending withdrawal to the chain: its network is not one this deployment sends on,
 * its token has no contract here, the hot wallet (its signing key) cannot be reached, or the chain-transaction
 * request failed. The batcher tries again on its next pass.
 */
export const DISPATCH_REFUSALS = ['network_not_served', 'no_token_contract', 'hot_wallet_unavailable', 'dispatch_failed'] as const;
export type DispatchRefusal = (typeof DISPATCH_REFUSALS)[number];

/** How often the withdrawal batcher runs (its schedule: every minute). */
export const BATCHER_INTERVAL_MS = 60_000;

/**
 * How long a withdrawal of `currency` is expected to take: one batcher pass, then its transfer's confirmations
 * (the catalogue's, per currency) at its network's block time. A withdrawal still open after this says why.
 */
export function expectedWithdrawalMs(currency: Pick<CurrencyDefinition, 'network' | 'confirmations'>): number {
  return BATCHER_INTERVAL_MS + NETWORKS[currency.network].blockTimeMs * currency.confirmations;
}

/**
 * A withdrawal held for review: it stays `pending` and is not dispatched until the operator approves it; a
 * rejection ends it `rejected` with the hold returned.
 */
export interface WithdrawalReview {
  /** Why the policy held it: `amount_over_threshold`, `rolling_total_over_threshold`, `destination_not_allowed`. */
  readonly reasons: readonly string[];
  readonly decision: 'approved' | 'rejected' | null;
  readonly decidedBy: string | null;
  readonly decidedAt: string | null;
  readonly note: string | null;
}

export const awaitingReview = (w: Pick<WithdrawalState, 'review'>): boolean => w.review != null && w.review.decision === null;

export type WithdrawalFact =
  /** The batcher handed it to the chain-transaction engine: alone, or as an item of the batch payout `batch`. */
  | { readonly kind: 'dispatched'; readonly batch?: string }
  /**
   * `networkFee`: what the chain took for this withdrawal, where known exactly (its share of a Bitcoin batch's fee):
   * charged up to the network fee held at creation (the rest of the hold returns to the balance), the withdrawal's
   * network_fee, total_fee and total_deducted then telling what was paid.
   */
  | { readonly kind: 'chain_confirmed'; readonly txHash: string; readonly networkFee?: Decimal }
  | { readonly kind: 'chain_failed'; readonly reason: string }
  /** The tenant cancelled it. */
  | { readonly kind: 'cancel' }
  /** The operator's decision on a withdrawal held for review. */
  | { readonly kind: 'review_approved'; readonly by: string }
  | { readonly kind: 'review_rejected'; readonly by: string; readonly note: string };

export type WithdrawalEffect =
  /** Post this ledger entry in the same transaction as the change (its id makes it happen once). */
  | { readonly kind: 'post_entry'; readonly entryId: string; readonly entry: EntryDraft }
  /** Ask the chain-transaction engine for the transfer (idempotent on the withdrawal id), after the save. */
  | { readonly kind: 'request_transfer' };

export interface WithdrawalChange {
  readonly state: WithdrawalState;
  readonly events: readonly WithdrawalEvent[];
  readonly effects: readonly WithdrawalEffect[];
}

/* ---------------------------------------------------------------- guards */

export const isFinal = (w: Pick<WithdrawalState, 'status'>): boolean =>
  w.status === 'completed' || w.status === 'failed' || w.status === 'cancelled' || w.status === 'rejected';
/** Only a pending withdrawal goes to the chain, and not while it waits for its review. */
export const canDispatch = (w: Pick<WithdrawalState, 'status' | 'review'>): boolean => w.status === 'pending' && !awaitingReview(w);
/** The operator decides only on a pending withdrawal held for review. */
export const canReview = (w: Pick<WithdrawalState, 'status' | 'review'>): boolean => w.status === 'pending' && awaitingReview(w);
/** Only a pending withdrawal can be cancelled (spec 3.2). */
export const canCancel = (w: Pick<WithdrawalState, 'status'>): boolean => w.status === 'pending';
/** Accepted, not yet handed to the chain (or held for review). */
export const isPending = (w: Pick<WithdrawalState, 'status'>): boolean => w.status === 'pending';
/** Handed to the chain: its transfer (alone or in a batch) is on its way. */
export const isProcessing = (w: Pick<WithdrawalState, 'status'>): boolean => w.status === 'processing';
/** Ended without being paid: its funds are back (its `failureReason` says why). */
export const hasFailed = (w: Pick<WithdrawalState, 'status'>): boolean => w.status === 'failed';
/** Still on its way: pending or processing. */
export const isOpen = (w: Pick<WithdrawalState, 'status'>): boolean => isPending(w) || isProcessing(w);
/** A chain result settles a processing withdrawal, or a pending one (staging addresses settle without a chain). */
export const canSettle = (w: Pick<WithdrawalState, 'status'>): boolean => w.status === 'pending' || w.status === 'processing';

/** Withdrawals on a network of this family are signed and followed by the custody-solana worker, not the batcher. */
export const sentBySolanaWorker = (w: { readonly network?: string }): boolean =>
  w.network !== undefined && NETWORKS[w.network as keyof typeof NETWORKS]?.family === 'sol';

/**
 * The work queue a withdrawal is in: the batcher reads `pending`, and re-asks for `processing` ones' transfers; a
 * pending one held for review waits in `review` (the operator's list), out of the batcher's sight. A Solana one,
 * pending (not held) or processing, is in `solana`: the custody-solana worker's, never the batcher's.
 */
export type WithdrawalQueue = 'pending' | 'processing' | 'review' | 'solana';
export function workQueueOf(w: Pick<WithdrawalState, 'status' | 'review'> & { readonly network?: string }): WithdrawalQueue | null {
  if (w.status === 'pending' && awaitingReview(w)) return 'review';
  if (w.status !== 'pending' && w.status !== 'processing') return null;
  return sentBySolanaWorker(w) ? 'solana' : w.status;
}

/** A custody account's withdrawal: read at the custody endpoints, a custody movement in the history. */
export const isCustodyWithdrawal = (w: Pick<WithdrawalState, 'custodyAccountId'>): boolean => Boolean(w.custodyAccountId);

/** The customer account the funds come from: the custody account, the wallet named by `account_id`, else main. */
export const sourceAccount = (w: Pick<WithdrawalState, 'accountId' | 'custodyAccountId'>): CustomerAccount =>
  w.custodyAccountId ? custodyAccount(w.custodyAccountId) : w.accountId ? walletAccount(w.accountId) : MAIN;

/* ---------------------------------------------------------------- lifecycle */

const reference = (w: Pick<WithdrawalState, 'id'>): EntryReference => ({ kind: 'withdrawal', id: w.id });

/** A custody withdrawal's one event per change: `custody_withdrawal_update`, keyed by what changed. */
const custodyEvent = (w: WithdrawalState, previous: WithdrawalStatus | null, key: string): WithdrawalEvent => ({
  type: EVENTS.custodyWithdrawalUpdate,
  key,
  payload: custodyWithdrawalPayload(w, previous),
});

/**
 * The events of a status change. A custody account's withdrawal is announced as `custody_withdrawal_update` only:
 * the `withdrawal_status_update` and `withdrawal.*` events are the main account's and the wallets' withdrawals, the
 * ones `GET /withdrawal/{id}/` answers.
 */
function statusEvents(next: WithdrawalState, previous: WithdrawalStatus): WithdrawalEvent[] {
  if (isCustodyWithdrawal(next)) return [custodyEvent(next, previous, `status:${next.status}`)];
  const payload = withdrawalPayload(next, previous);
  const family = withdrawalFamilyEvent(next.status);
  return [
    { type: EVENTS.withdrawalStatusUpdate, key: `status:${next.status}`, payload },
    { type: EVENTS.withdrawalStatusChanged, key: `status_changed:${next.status}`, payload },
    ...(family ? [{ type: family, key: next.status, payload }] : []),
  ];
}

export type WithdrawalDraft = Omit<
  WithdrawalState,
  'status' | 'transactionHash' | 'failureReason' | 'dispatchRefusal' | 'batch' | 'createdAt' | 'updatedAt' | 'version'
>;

/** What a new withdrawal takes from its currency and its priced totals (`priceWithdrawal`), wherever it is made. */
export function pricedWithdrawal(
  currency: Pick<CurrencyDefinition, 'code' | 'network' | 'token'>,
  totals: WithdrawalTotals,
): Pick<WithdrawalDraft, 'currency' | 'network' | 'token' | 'amount' | 'networkFee' | 'platformFee' | 'totalFee' | 'totalDeducted'> {
  return {
    currency: currency.code,
    network: currency.network,
    token: currency.token,
    amount: totals.amount,
    networkFee: totals.networkFee,
    platformFee: totals.platformFee,
    totalFee: totals.totalFee,
    totalDeducted: totals.totalDeducted,
  };
}

/** A new withdrawal: pending, with `amount + fees` held on its source account by the same transaction. */
export function openWithdrawal(draft: WithdrawalDraft, now: Date): WithdrawalChange {
  const at = now.toISOString();
  const state: WithdrawalState = { ...draft, status: 'pending', transactionHash: null, failureReason: null, createdAt: at, updatedAt: at, version: 0 };
  const payload = withdrawalPayload(state, null);
  return {
    state,
    events: isCustodyWithdrawal(state)
      ? [custodyEvent(state, null, 'status:pending')]
      : [
          { type: EVENTS.withdrawalCreated, key: 'created', payload },
          { type: EVENTS.withdrawalStatusUpdate, key: 'status:pending', payload },
          { type: EVENTS.withdrawalStatusChanged, key: 'status_changed:pending', payload },
        ],
    effects: [
      {
        kind: 'post_entry',
        entryId: `withdrawal:${state.id}:hold`,
        entry: holdEntry({ account: sourceAccount(state), currency: state.currency, amount: state.totalDeducted, reference: reference(state) }),
      },
    ],
  };
}

/**
 * The withdrawal that pays a refund: pending, announced as any withdrawal, and with NO hold of its own, since the
 * refund's hold (its whole amount, on the account the payment credited) already sits in that account's `locked`.
 * It sends the refund's amount less the network fee (`networkFee`, priced for the refund's address), no platform
 * fee: its `totalDeducted` is the refund's amount, so its payout spends exactly the refund's hold and its failure or
 * cancel releases exactly that hold, once.
 */
export function openRefundPayout(
  refund: { readonly id: string; readonly tenantId: string; readonly amount: Decimal; readonly account: CustomerAccount },
  payout: Pick<WithdrawalDraft, 'id' | 'currency' | 'network' | 'token' | 'address' | 'networkFee'>,
  now: Date,
): WithdrawalChange {
  if (refund.account.startsWith('custody:')) throw new RangeError(`a refund held on ${refund.account}`);
  if (!lte(payout.networkFee, refund.amount) || !isPositive(sub(refund.amount, payout.networkFee))) {
    throw new RangeError(`a refund of ${refund.amount} does not cover the network fee ${payout.networkFee}`);
  }
  const opened = openWithdrawal(
    {
      ...payout,
      tenantId: refund.tenantId,
      amount: sub(refund.amount, payout.networkFee),
      platformFee: '0',
      totalFee: payout.networkFee,
      totalDeducted: refund.amount,
      customId: null,
      // The payment's callback URL hears of the refund (refund_status_update), not of the withdrawal behind it.
      callbackUrl: null,
      accountId: refund.account === MAIN ? null : refund.account.slice('wallet:'.length),
      priceAmount: null,
      priceCurrency: null,
      refundId: refund.id,
    },
    now,
  );
  return { ...opened, effects: [] };
}

/**
 * Completion: the held funds leave the ledger, the fees go to the platform's accounts; `returned` (a network fee
 * held above what the chain took) goes back to the balance it was held from.
 */
function payoutEntry(w: WithdrawalState, returned: Decimal = '0'): EntryDraft {
  const locked = pocket(sourceAccount(w), 'locked');
  const legs: Leg[] = [
    { from: locked, to: pocket(EXTERNAL), amount: w.amount },
    { from: locked, to: pocket(FEES), amount: w.platformFee },
    { from: locked, to: pocket(NETWORK_FEES), amount: w.networkFee },
    { from: locked, to: pocket(sourceAccount(w)), amount: returned },
  ].filter((l) => isPositive(l.amount));
  return { type: 'withdrawal', currency: w.currency, legs, reference: reference(w) };
}

/** The fees of a withdrawal whose chain took `taken` for it: up to the network fee held, never more. */
function chargedNetworkFee(w: WithdrawalState, taken: Decimal): Pick<WithdrawalState, 'networkFee' | 'totalFee' | 'totalDeducted'> {
  if (!lte('0', taken)) throw new RangeError(`a negative network fee ${taken}`);
  const networkFee = lte(taken, w.networkFee) ? taken : w.networkFee;
  const returned = sub(w.networkFee, networkFee);
  return { networkFee, totalFee: sub(w.totalFee, returned), totalDeducted: sub(w.totalDeducted, returned) };
}

const returnEntry = (w: WithdrawalState): EntryDraft =>
  releaseEntry({ account: sourceAccount(w), currency: w.currency, amount: w.totalDeducted, reference: reference(w) });

const decided = (w: WithdrawalState, decision: 'approved' | 'rejected', by: string, note: string | null, at: string): WithdrawalReview => ({
  reasons: w.review?.reasons ?? [],
  decision,
  decidedBy: by,
  decidedAt: at,
  note,
});

function refuse(w: WithdrawalState, fact: WithdrawalFact): never {
  const message =
    fact.kind === 'cancel' ? `A ${w.status} withdrawal cannot be cancelled; only pending ones can.` : `A ${w.status} withdrawal cannot take '${fact.kind}'.`;
  throw new ConflictError(message, { status: w.status, action: fact.kind });
}

/**
 * The pure transition: the withdrawal after `fact` at `now`, its events and effects. A fact the guards do not
 * allow is a ConflictError (409 `invalid_state`). Never writes.
 */
export function transition(w: WithdrawalState, fact: WithdrawalFact, now: Date): WithdrawalChange {
  const at = now.toISOString();
  const move = (
    status: WithdrawalStatus,
    changes: Partial<Pick<WithdrawalState, 'transactionHash' | 'failureReason' | 'dispatchRefusal' | 'networkFee' | 'totalFee' | 'totalDeducted'>>,
    effects: WithdrawalEffect[],
  ): WithdrawalChange => {
    const state: WithdrawalState = { ...w, ...changes, status, updatedAt: at };
    return { state, events: statusEvents(state, w.status), effects };
  };
  switch (fact.kind) {
    case 'dispatched':
      if (!canDispatch(w)) refuse(w, fact);
      // Handed on: a refusal recorded by an earlier pass no longer holds. An item of a batch has no transfer of
      // its own: the batcher asks for the batch once every item is saved.
      if (fact.batch !== undefined) {
        const change = move('processing', w.dispatchRefusal ? { dispatchRefusal: null } : {}, []);
        return { ...change, state: { ...change.state, batch: { reference: fact.batch, single: false } } };
      }
      return move('processing', w.dispatchRefusal ? { dispatchRefusal: null } : {}, [{ kind: 'request_transfer' }]);
    case 'chain_confirmed': {
      if (!canSettle(w)) refuse(w, fact);
      const fees = fact.networkFee === undefined ? {} : chargedNetworkFee(w, fact.networkFee);
      const paid: WithdrawalState = { ...w, ...fees };
      const returned = sub(w.totalDeducted, paid.totalDeducted);
      return move('completed', { transactionHash: fact.txHash, ...fees }, [
        { kind: 'post_entry', entryId: `withdrawal:${w.id}:complete`, entry: payoutEntry(paid, returned) },
      ]);
    }
    case 'chain_failed':
      if (!canSettle(w)) refuse(w, fact);
      return move('failed', { failureReason: fact.reason }, [{ kind: 'post_entry', entryId: `withdrawal:${w.id}:fail`, entry: returnEntry(w) }]);
    case 'cancel':
      if (!canCancel(w)) refuse(w, fact);
      return move('cancelled', {}, [{ kind: 'post_entry', entryId: `withdrawal:${w.id}:release`, entry: returnEntry(w) }]);
    case 'review_approved': {
      if (!canReview(w)) refuse(w, fact);
      const state: WithdrawalState = { ...w, review: decided(w, 'approved', fact.by, null, at), updatedAt: at };
      // Still pending: the batcher now dispatches it.
      const approved = isCustodyWithdrawal(state)
        ? custodyEvent(state, w.status, 'approved')
        : { type: EVENTS.withdrawalApproved, key: 'approved', payload: withdrawalPayload(state, w.status) };
      return { state, events: [approved], effects: [] };
    }
    case 'review_rejected': {
      if (!canReview(w)) refuse(w, fact);
      const rejected = move('rejected', { failureReason: `rejected in review: ${fact.note}` }, [
        { kind: 'post_entry', entryId: `withdrawal:${w.id}:reject`, entry: returnEntry(w) },
      ]);
      return { ...rejected, state: { ...rejected.state, review: decided(w, 'rejected', fact.by, fact.note, at) } };
    }
  }
}

/**
 * A Solana withdrawal's newly signed transaction, to persist before it is sent: the first moves it `pending` ->
 * `processing` (`dispatched`, with its events); a later one (every earlier attempt known never to land) is added
 * to the processing withdrawal without an event.
 */
export function recordSolanaAttempt(w: WithdrawalState, attempt: SolanaWithdrawalAttempt, now: Date): WithdrawalChange {
  const attempts = [...(w.solanaAttempts ?? []), attempt];
  if (w.status === 'pending') {
    const change = transition(w, { kind: 'dispatched' }, now);
    // Its transfer is this attempt, not a chain-tx request.
    return { state: { ...change.state, solanaAttempts: attempts }, events: change.events, effects: [] };
  }
  if (w.status !== 'processing') throw new ConflictError(`A ${w.status} withdrawal is not sent.`, { status: w.status, action: 'solana_attempt' });
  return { state: { ...w, solanaAttempts: attempts, updatedAt: now.toISOString() }, events: [], effects: [] };
}

/**
 * A processing item of a batch payout that the batch did not pay (its item failed, the batch reverted or failed, or
 * the batch's request does not carry it) is left to a transfer of its own: still processing, no event, and the
 * `request_transfer` effect (idempotent on its id). Nothing was paid for it, so nothing is paid twice.
 */
export function leaveBatch(w: WithdrawalState, now: Date): WithdrawalChange {
  if (w.status !== 'processing' || !w.batch || w.batch.single) {
    throw new ConflictError(`A ${w.status} withdrawal is not waiting on a batch.`, { status: w.status, action: 'leave_batch' });
  }
  return { state: { ...w, batch: { ...w.batch, single: true }, updatedAt: now.toISOString() }, events: [], effects: [{ kind: 'request_transfer' }] };
}

/**
 * The batcher could not hand a pending withdrawal on this pass: the reason is recorded on it (no status change,
 * no event, no effect) so that a slow withdrawal can say why. Only a pending withdrawal waits for dispatch.
 */
export function noteDispatchRefusal(w: WithdrawalState, reason: DispatchRefusal): WithdrawalChange {
  if (!canDispatch(w)) throw new ConflictError(`A ${w.status} withdrawal is not waiting for dispatch.`, { status: w.status, action: 'dispatch_refused' });
  return { state: { ...w, dispatchRefusal: reason }, events: [], effects: [] };
}
