import { EVENTS } from '../../domain/events.js';

/**
 * The state machine of a chain-transaction request (sweeps and withdrawals share it). Pure: no I/O.
 *
 * ```
 * queued ──nonce_allocated──> allocated ──signed──> signed ──broadcast──> pending ──mined──> confirmed | reverted
 *   │  ▲ blocked (reason)        │  ▲ blocked          │  ▲ blocked           │  ▲
 *   │  └────────┘                │  └──────┘           │  └──bumped (same nonce, new hash; back to `signed`)
 *   └──cancel──> cancelled <─────┘ (releases the nonce)   └──dropped (nonce used by another tx)──> failed
 * ```
 *
 * TRON has no nonces: a request goes from `queued` straight to `signed` (its attempt carries `expiresAt`), and
 * `bumped` adds a re-signed attempt only once the previous one has expired without reaching the chain.
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

export type EvmFees =
  { readonly type: 2; readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint } | { readonly type: 0; readonly gasPrice: bigint };

export type TxFees =
  | EvmFees
  /** TRON: the most sun a contract call may burn for energy (no gas price, no nonce). */
  | { readonly type: 'tron'; readonly feeLimit: bigint };

/** One signed transaction of a request (every fee bump adds one, all with the request's nonce). */
export interface ChainTxAttempt {
  readonly hash: string;
  readonly raw: string;
  readonly fees: TxFees;
  readonly gasLimit: bigint;
  readonly signedAt: string;
  /** TRON: the transaction cannot be included at or after this time (ISO); only then may it be re-signed. */
  readonly expiresAt?: string;
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
  /** Optimistic-concurrency version: every save is conditioned on it. */
  readonly version: number;
}

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

export type ChainTxEffect =
  | { readonly kind: 'event'; readonly type: ChainTxEventType; readonly payload: ChainTxEventPayload }
  | { readonly kind: 'release_nonce'; readonly nonce: number };

export class InvalidChainTxTransitionError extends Error {
  readonly code = 'invalid_chain_tx_transition';
  constructor(status: ChainTxStatus, transition: ChainTxTransition['type']) {
    super(`A chain transaction in status ${status} cannot take '${transition}'`);
    this.name = 'InvalidChainTxTransitionError';
  }
}

/** The stored request changed since it was read (another processor moved it): re-read and decide again. */
export class ChainTxVersionConflictError extends Error {
  readonly code = 'chain_tx_version_conflict';
  constructor(requestId: string, options?: { cause?: unknown }) {
    super(`Chain-tx request ${requestId} changed concurrently`, options);
    this.name = 'ChainTxVersionConflictError';
  }
}

// Guard predicates.
export const isFinal = (tx: Pick<ChainTx, 'status'>): boolean =>
  tx.status === 'confirmed' || tx.status === 'reverted' || tx.status === 'failed' || tx.status === 'cancelled';
export const isOpen = (tx: Pick<ChainTx, 'status'>): boolean => !isFinal(tx);
/** Has signed bytes that must reach the chain (never abandoned). */
export const isInFlight = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'signed' || tx.status === 'pending';
export const canCancel = (tx: Pick<ChainTx, 'status'>): boolean => tx.status === 'queued' || tx.status === 'allocated';
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

/**
 * The pure transition: the request after `transition` at `now`, and the effects it produced (outbox events,
 * a released nonce). The caller saves the new request and the effects in one transaction.
 */
export function transition(tx: ChainTx, event: ChainTxTransition, now: Date): { tx: ChainTx; effects: ChainTxEffect[] } {
  const at = now.toISOString();
  const base = { ...tx, updatedAt: at, version: tx.version + 1 };
  const refuse = (): never => {
    throw new InvalidChainTxTransitionError(tx.status, event.type);
  };
  switch (event.type) {
    case 'blocked':
      // `signed`: the node refused the persisted bytes for lack of funds; they are kept and sent again later.
      if (!(tx.status === 'queued' || tx.status === 'allocated' || tx.status === 'signed')) refuse();
      return { tx: { ...base, reason: event.reason }, effects: [] };
    case 'nonce_allocated':
      if (tx.status !== 'queued') refuse();
      if (!Number.isSafeInteger(event.nonce) || event.nonce < 0) throw new RangeError(`bad nonce ${event.nonce}`);
      return { tx: { ...base, status: 'allocated', nonce: event.nonce, reason: undefined }, effects: [] };
    case 'signed':
      // Nonce chains sign once a nonce is allocated; TRON (an attempt with an expiry) signs straight from queued.
      if (!(tx.status === 'allocated' || (tx.status === 'queued' && tx.nonce === undefined && event.attempt.expiresAt !== undefined))) refuse();
      return { tx: { ...base, status: 'signed', attempts: [event.attempt], reason: undefined }, effects: [] };
    case 'broadcast':
      if (!isInFlight(tx)) refuse();
      return { tx: { ...base, status: 'pending', sentAt: at, reason: undefined }, effects: [] };
    case 'bumped':
      if (!isInFlight(tx)) refuse();
      if (tx.attempts.some((a) => a.hash === event.attempt.hash)) refuse();
      return { tx: { ...base, status: 'signed', attempts: [...tx.attempts, event.attempt], reason: undefined }, effects: [] };
    case 'mined': {
      if (!isInFlight(tx)) refuse();
      if (!tx.attempts.some((a) => a.hash === event.mined.hash)) throw new RangeError(`hash ${event.mined.hash} is not tracked by ${tx.requestId}`);
      const status = event.mined.status === 1 ? 'confirmed' : 'reverted';
      const next: ChainTx = { ...base, status, mined: event.mined, reason: undefined };
      const type = status === 'confirmed' ? CHAIN_TX_CONFIRMED : CHAIN_TX_FAILED;
      return { tx: next, effects: [{ kind: 'event', type, payload: payloadOf(next, status) }] };
    }
    case 'dropped': {
      if (!isInFlight(tx)) refuse();
      const next: ChainTx = { ...base, status: 'failed', failure: event.failure };
      return { tx: next, effects: [{ kind: 'event', type: CHAIN_TX_FAILED, payload: payloadOf(next, 'failed') }] };
    }
    case 'cancel': {
      if (!canCancel(tx)) refuse();
      const next: ChainTx = { ...base, status: 'cancelled' };
      return { tx: next, effects: tx.nonce === undefined ? [] : [{ kind: 'release_nonce', nonce: tx.nonce }] };
    }
  }
}
