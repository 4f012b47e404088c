import { ConflictError } from './errors.js';
import type { EventPayload } from './events.js';
import { EVENTS } from './events.js';

/**
 * The lifecycle of a chain-transaction request (sweeps and withdrawals share it), pure: its statuses and guards,
 * its creation, and the transition that turns a request plus a fact into the new request, the events it announces
 * and the effects the caller commits with it in ONE transaction (a released nonce). The version is the
 * repository's: it conditions every save on the version read and bumps it (shared/store/chain-tx.ts).
 *
 * ```
 * queued ──nonce_allocated──> allocated ──signed──> signed ──broadcast──> pending ──mined──> confirmed | reverted
 *   │  ▲ blocked (reason)        │  ▲ blocked          │  ▲ blocked           │  ▲
 *   │  └────────┘                │  └──────┘           │  └──bumped (same nonce, new hash; back to `signed`)
 *   └──cancel──> cancelled <─────┘ (releases the nonce)   └──dropped (nonce used by another tx)──> failed
 * ```
 *
 * TRON has no nonces: a request goes from `queued` straight to `signed` (its attempt carries `expiresAt`), and
 * `bumped` adds a re-signed attempt only once the previous one has expired without reaching the chain. Nor has
 * Bitcoin: `queued` -> `signed` (its attempt's fees are `btc`), and `bumped` adds a replacement spending the same
 * coins (BIP125), so at most one attempt can ever be mined.
 *
 * A request with a signed transaction is never cancelled: its bytes may already be on the wire, so it is
 * followed (re-broadcast, fee-bumped) until one of its hashes is mined. A request cancelled before signing
 * releases its nonce to the wallet's free-list, and the next allocation takes it first (gap filling).
 */

export const CHAIN_TX_STATUSES = ['queued', 'allocated', 'signed', 'pending', 'confirmed', 'reverted', 'failed', 'cancelled'] as const;
export type ChainTxStatus = (typeof CHAIN_TX_STATUSES)[number];

/** Why an open request is waiting (visible on the request; cleared when it moves on). */
export const CHAIN_TX_REASONS = ['insufficient_gas', 'estimate_failed', 'fee_cap_reached'] as const;
export type ChainTxReason = (typeof CHAIN_TX_REASONS)[number];

/** Outbox event types other code listens to (their payloads and consumers: shared/domain/events.ts). */
export const CHAIN_TX_CONFIRMED = EVENTS.chainTxConfirmed;
export const CHAIN_TX_FAILED = EVENTS.chainTxFailed;
export const CHAIN_TX_REQUESTED = EVENTS.chainTxRequested;
export type ChainTxEventType = typeof CHAIN_TX_CONFIRMED | typeof CHAIN_TX_FAILED;
/** The aggregate type of a request: its stored item's `type` and the first part of its events' ids. */
export const CHAIN_TX = 'chain_tx';

export type EvmFees =
  { readonly type: 2; readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint } | { readonly type: 0; readonly gasPrice: bigint };

export type TxFees =
  | EvmFees
  /** TRON: the most sun a contract call may burn for energy (no gas price, no nonce). */
  | { readonly type: 'tron'; readonly feeLimit: bigint }
  /**
   * Bitcoin: the attempt's fee rate (sat/vB) and fee (satoshis), and its change back to the hot wallet (satoshis, 0
   * when none; its output follows the payouts). Every attempt of a request spends the same coins (BIP125 replacement).
   */
  | { readonly type: 'btc'; readonly feeRate: bigint; readonly fee: bigint; readonly change: bigint };

/** One signed transaction of a request (every fee bump adds one, all with the request's nonce). */
export interface ChainTxAttempt {
  readonly hash: string;
  readonly raw: string;
  readonly fees: TxFees;
  readonly gasLimit: bigint;
  readonly signedAt: string;
  /** TRON: the transaction cannot be included at or after this time (ISO); only then may it be re-signed. */
  readonly expiresAt?: string;
  /** Bitcoin: the chain's height when it was signed (a replacement is due some blocks later). */
  readonly signedAtHeight?: number;
  /** Bitcoin: each payout's share of the fee by weight (satoshis, decimal strings, in `items` order); they sum to the fee. */
  readonly feeShares?: readonly string[];
  /** Bitcoin: the coins it spends (`txid:vout`); every attempt of a request spends the same ones. */
  readonly spends?: readonly string[];
}

export interface MinedTx {
  readonly hash: string;
  readonly blockNumber: number;
  /** 1 success, 0 reverted. */
  readonly status: 0 | 1;
  readonly gasUsed: bigint;
}

export interface ChainTx {
  /** `<network>:<reference>`. */
  readonly requestId: string;
  readonly network: string;
  readonly reference: string;
  readonly purpose: string;
  readonly tenantId: string;
  readonly wallet: { readonly keyId: string; readonly address: string };
  readonly to: string;
  readonly data: string;
  readonly value: bigint;
  /** Caller-fixed gas limit; estimated (with a margin) when absent. */
  readonly gasLimit?: bigint;
  /**
   * What the transaction carries, in call-data order, for its settlement (a batch payout's items as
   * `<tenant>:<withdrawal>`); absent for a transaction of one thing. Fixed with the request.
   */
  readonly items?: readonly string[];
  readonly status: ChainTxStatus;
  readonly reason?: ChainTxReason;
  readonly nonce?: number;
  readonly attempts: readonly ChainTxAttempt[];
  /** When the current attempt was last broadcast. */
  readonly sentAt?: string;
  readonly mined?: MinedTx;
  readonly failure?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The repository's optimistic-concurrency version: every save is conditioned on it (0 before the first save). */
  readonly version: number;
}

/** A fact that moves a request (named by `type`). */
export type ChainTxTransition =
  | { readonly type: 'blocked'; readonly reason: ChainTxReason }
  | { readonly type: 'nonce_allocated'; readonly nonce: number }
  | { readonly type: 'signed'; readonly attempt: ChainTxAttempt }
  | { readonly type: 'broadcast' }
  | { readonly type: 'bumped'; readonly attempt: ChainTxAttempt }
  | { readonly type: 'mined'; readonly mined: MinedTx }
  | { readonly type: 'dropped'; readonly failure: string }
  | { readonly type: 'cancel' };

export interface ChainTxEventPayload {
  readonly [key: string]: unknown;
  readonly request_id: string;
  readonly network: string;
  readonly reference: string;
  readonly purpose: string;
  readonly status: 'confirmed' | 'reverted' | 'failed';
  readonly tx_hash: string | null;
  readonly block_number: number | null;
  /** Decimal string (bigint), null when nothing was mined. */
  readonly gas_used: string | null;
  readonly nonce: number | null;
  /** Every hash that was signed for the request (fee bumps), the mined one included. */
  readonly tx_hashes: string[];
  readonly failure: string | null;
}

/** An outbox event of a change; `key` is its natural key within the request (outbox id `chain_tx:<request id>:<key>`). */
export interface ChainTxEvent {
  readonly type: ChainTxEventType;
  readonly key: string;
  readonly payload: ChainTxEventPayload;
}

/** What a change asks the repository to write besides the request: a nonce back to the wallet's free-list. */
export type ChainTxEffect = { readonly kind: 'release_nonce'; readonly nonce: number };

/** A transition's outcome: the request as it will be saved, its events and its effects (one transaction). */
export interface ChainTxChange {
  readonly state: ChainTx;
  readonly events: readonly ChainTxEvent[];
  readonly effects: readonly ChainTxEffect[];
}

/** A transition the request's status does not allow: a ConflictError (409 `invalid_state`), as every lifecycle's. */
export class InvalidChainTxTransitionError extends ConflictError {
  constructor(tx: Pick<ChainTx, 'requestId' | 'status'>, transition: ChainTxTransition['type']) {
    super(`A chain transaction in status ${tx.status} cannot take '${transition}'.`, { request_id: tx.requestId, status: tx.status, action: transition });
    this.name = 'InvalidChainTxTransitionError';
  }
}

/* ---------------------------------------------------------------- guards */

export const isFinal = (tx: Pick<ChainTx, 'status'>): boolean =>
  tx.status === 'confirmed' || tx.status === 'reverted' || tx.status === 'failed' || tx.status === 'cancelled';
export const isOpen = (tx: Pick<ChainTx, 'status'>): boolean => !isFinal(tx);
/** Nothing taken yet: no nonce, no signature (the wallet's nonce manager or, on TRON, the signer is next). */
export const isQueued = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'queued';
/** Holds a nonce and waits for its signature. */
export const awaitsSignature = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'allocated';
/** Signed and persisted, not known to be sent yet (or refused by the node for funds): its bytes go out next. */
export const awaitsBroadcast = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'signed';
/** Has signed bytes that must reach the chain (never abandoned). */
export const isInFlight = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'signed' || tx.status === 'pending';
export const canCancel = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'queued' || tx.status === 'allocated';
/** Mined and succeeded (a reverted transaction was mined but changed nothing). */
export const isConfirmed = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'confirmed';
/** Cancelled before signing (or a reference claimed by a request that is never sent): nothing went to the chain. */
export const isCancelled = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'cancelled';
/** Waiting because the wallet cannot pay for gas now. */
export const waitsForGas = (tx: Pick<ChainTx, 'reason'>): boolean => tx.reason === 'insufficient_gas';
/** May be held with `reason` (waiting without losing its place): not yet sent, or refused by the node for funds. */
const canBlock = (tx: Pick<ChainTx, 'status'>): boolean => isQueued(tx) || awaitsSignature(tx) || awaitsBroadcast(tx);
export const currentAttempt = (tx: Pick<ChainTx, 'attempts'>): ChainTxAttempt | undefined => tx.attempts[tx.attempts.length - 1];
export const trackedHashes = (tx: Pick<ChainTx, 'attempts'>): string[] => tx.attempts.map((a) => a.hash);

/** A sent transaction not mined `bumpAfterSeconds` after its last broadcast is due for a fee bump. */
export function isBumpDue(tx: ChainTx, now: Date, bumpAfterSeconds: number): boolean {
  if (tx.status !== 'pending' || tx.sentAt === undefined) return false;
  return now.getTime() - Date.parse(tx.sentAt) >= bumpAfterSeconds * 1000;
}

export const requestIdOf = (network: string, reference: string): string => `${network}:${reference}`;

export function parseRequestId(requestId: string): { network: string; reference: string } {
  const i = requestId.indexOf(':');
  if (i <= 0 || i === requestId.length - 1) throw new TypeError(`Not a chain-tx request id: ${requestId}`);
  return { network: requestId.slice(0, i), reference: requestId.slice(i + 1) };
}

/* ---------------------------------------------------------------- creation */

/** What a caller fixes when it asks for a transaction. */
export type ChainTxDraft = Pick<ChainTx, 'network' | 'reference' | 'purpose' | 'tenantId' | 'wallet' | 'to' | 'data' | 'value' | 'gasLimit' | 'items'>;

function created(draft: ChainTxDraft, status: 'queued' | 'cancelled', now: Date): ChainTx {
  const at = now.toISOString();
  const { items, gasLimit, ...fields } = draft;
  return {
    ...fields,
    requestId: requestIdOf(draft.network, draft.reference),
    ...(gasLimit === undefined ? {} : { gasLimit }),
    ...(items === undefined ? {} : { items }),
    status,
    attempts: [],
    createdAt: at,
    updatedAt: at,
    version: 0,
  };
}

/** A new request, queued for its nonce (or, on TRON, its signature). */
export const openChainTx = (draft: ChainTxDraft, now: Date): ChainTx => created(draft, 'queued', now);

/**
 * A reference claimed by a request that is never sent (cancelled from the start), so a caller that is late rather
 * than dead has its own request for that reference refused.
 */
export const claimedChainTx = (draft: ChainTxDraft, now: Date): ChainTx => created(draft, 'cancelled', now);

/** The `chain_tx.requested` payload of a new request (its announcement, consumed by the `transfers` queue). */
export const requestedPayload = (tx: ChainTx): EventPayload<typeof CHAIN_TX_REQUESTED> => ({
  request_id: tx.requestId,
  network: tx.network,
  reference: tx.reference,
  purpose: tx.purpose,
});

/** Whether asking again with `draft` is the same request as `tx` (asking is idempotent on network and reference). */
export const sameRequest = (tx: ChainTx, draft: ChainTxDraft): boolean =>
  tx.purpose === draft.purpose &&
  tx.to === draft.to &&
  tx.data === draft.data &&
  tx.value === draft.value &&
  tx.gasLimit === draft.gasLimit &&
  (tx.items ?? []).join('\n') === (draft.items ?? []).join('\n') &&
  tx.wallet.address === draft.wallet.address &&
  tx.wallet.keyId === draft.wallet.keyId;

/* ---------------------------------------------------------------- transition */

function payloadOf(tx: ChainTx, status: ChainTxEventPayload['status']): ChainTxEventPayload {
  return {
    request_id: tx.requestId,
    network: tx.network,
    reference: tx.reference,
    purpose: tx.purpose,
    status,
    tx_hash: tx.mined?.hash ?? null,
    block_number: tx.mined?.blockNumber ?? null,
    gas_used: tx.mined === undefined ? null : tx.mined.gasUsed.toString(),
    nonce: tx.nonce ?? null,
    tx_hashes: trackedHashes(tx),
    failure: tx.failure ?? null,
  };
}

/** The final event of a request, keyed by its type: a replayed final transition cannot announce twice. */
const finalEvent = (tx: ChainTx, type: ChainTxEventType, status: ChainTxEventPayload['status']): ChainTxEvent => ({
  type,
  key: type,
  payload: payloadOf(tx, status),
});

/**
 * The result event a final request announced (`chain_tx.confirmed`, or `chain_tx.failed` for a reverted or failed
 * one), rebuilt from the request as stored: same key, same payload. Null for an open request and for a cancelled one
 * (never sent, it announces nothing). The reconciler sends it again when the first message was lost.
 */
export function resultEventOf(tx: ChainTx): ChainTxEvent | null {
  if (tx.status === 'confirmed') return finalEvent(tx, CHAIN_TX_CONFIRMED, 'confirmed');
  if (tx.status === 'reverted' || tx.status === 'failed') return finalEvent(tx, CHAIN_TX_FAILED, tx.status);
  return null;
}

/**
 * The pure transition: the request after `fact` at `now`, the events it announces and its effects (a released
 * nonce). The caller saves them in one transaction. A fact the guards do not allow is an
 * InvalidChainTxTransitionError; a malformed one (a negative nonce, an untracked mined hash) a RangeError.
 */
export function transition(tx: ChainTx, fact: ChainTxTransition, now: Date): ChainTxChange {
  const base = { ...tx, updatedAt: now.toISOString() };
  const change = (state: ChainTx, events: ChainTxEvent[] = [], effects: ChainTxEffect[] = []): ChainTxChange => ({ state, events, effects });
  const refuse = (): never => {
    throw new InvalidChainTxTransitionError(tx, fact.type);
  };
  switch (fact.type) {
    case 'blocked':
      // `signed`: the node refused the persisted bytes for lack of funds; they are kept and sent again later.
      if (!canBlock(tx)) refuse();
      return change({ ...base, reason: fact.reason });
    case 'nonce_allocated':
      if (!isQueued(tx)) refuse();
      if (!Number.isSafeInteger(fact.nonce) || fact.nonce < 0) throw new RangeError(`bad nonce ${fact.nonce}`);
      return change({ ...base, status: 'allocated', nonce: fact.nonce, reason: undefined });
    case 'signed':
      // Nonce chains sign once a nonce is allocated; TRON (an attempt with an expiry) and Bitcoin sign straight from queued.
      if (!(awaitsSignature(tx) || (isQueued(tx) && tx.nonce === undefined && (fact.attempt.expiresAt !== undefined || fact.attempt.fees.type === 'btc'))))
        refuse();
      return change({ ...base, status: 'signed', attempts: [fact.attempt], reason: undefined });
    case 'broadcast':
      if (!isInFlight(tx)) refuse();
      return change({ ...base, status: 'pending', sentAt: base.updatedAt, reason: undefined });
    case 'bumped':
      if (!isInFlight(tx)) refuse();
      if (tx.attempts.some((a) => a.hash === fact.attempt.hash)) refuse();
      return change({ ...base, status: 'signed', attempts: [...tx.attempts, fact.attempt], reason: undefined });
    case 'mined': {
      if (!isInFlight(tx)) refuse();
      if (!tx.attempts.some((a) => a.hash === fact.mined.hash)) throw new RangeError(`hash ${fact.mined.hash} is not tracked by ${tx.requestId}`);
      const status = fact.mined.status === 1 ? 'confirmed' : 'reverted';
      const next: ChainTx = { ...base, status, mined: fact.mined, reason: undefined };
      return change(next, [finalEvent(next, status === 'confirmed' ? CHAIN_TX_CONFIRMED : CHAIN_TX_FAILED, status)]);
    }
    case 'dropped': {
      if (!isInFlight(tx)) refuse();
      const next: ChainTx = { ...base, status: 'failed', failure: fact.failure };
      return change(next, [finalEvent(next, CHAIN_TX_FAILED, 'failed')]);
    }
    case 'cancel': {
      if (!canCancel(tx)) refuse();
      return change({ ...base, status: 'cancelled' }, [], tx.nonce === undefined ? [] : [{ kind: 'release_nonce', nonce: tx.nonce }]);
    }
  }
}
