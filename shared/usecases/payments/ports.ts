import type { CurrencyDefinition, ServedNetworks } from '../../domain/currencies.js';
import type { Clock } from '../../domain/clock.js';
import type { Decimal } from '../../domain/money.js';
import type { PaymentChange, PaymentState, PaymentStatus } from '../../domain/payments.js';
import type { RatesDeps } from '../rates/ports.js';
import type { UsageGuard, WriteItem } from '../ports.js';
import type { AddressMatch } from '../deposits/ports.js';
import type { WalletDirectory } from '../wallets/ports.js';

/**
 * What the payment use cases need from outside, as ports. `shared/runtime/payments.ts` builds the real ones
 * (DynamoDB repositories, CREATE2 factories, the configured settings); tests pass `test/support/fakes/payments.ts`.
 */

export interface DepositAddressSource {
  /**
   * The single-use deposit address of a payment, with its salt: the CREATE2 salt of its forwarder (EVM, TRON), or the
   * tag of its witness script (Bitcoin, 64 hex digits). Asynchronous: a Bitcoin address needs the hot wallet's public
   * key, read from KMS once per process.
   */
  addressFor(network: string, tenantId: string, paymentId: string): Promise<{ address: string; salt: string }>;
}

/** Token contracts of this deployment (the stage's, overridden by configuration): null for a native coin or none. */
export type TokenContracts = (currency: CurrencyDefinition) => string | null;

export interface PaymentSettings {
  /** Underpayment tolerance, percent of the amount ("0.5" accepts 99.5 %). */
  readonly underpaymentTolerancePercent: Decimal;
  /** Hours after expiry during which a deposit is still recorded and credited. */
  readonly lateWatchHours: number;
  /** Plain-HTTP loopback callback URLs (the local stack only). */
  readonly allowLoopbackCallbacks: boolean;
  /** Public base URL of the API, for the list's `next` and `previous` links. */
  readonly publicBaseUrl: string | null;
  /** Confirmations needed per currency; locally small. */
  confirmationsFor(currency: CurrencyDefinition): number;
}

/** Which of a tenant's payments a list or a count takes. */
export interface PaymentFilter {
  readonly tenantId: string;
  readonly status?: PaymentStatus;
  readonly currency?: string;
  readonly network?: string;
  readonly token?: string;
  readonly orderId?: string;
  readonly createdAfter?: string;
  readonly createdBefore?: string;
  readonly amountMin?: Decimal;
  readonly amountMax?: Decimal;
}

export interface PaymentQuery extends PaymentFilter {
  readonly ordering: 'created_at' | '-created_at' | 'amount' | '-amount';
  /** Matches passed over before the first taken (the page's offset). */
  readonly skip?: number;
  /** Stop after this many matches. */
  readonly take: number;
}

export type { AddressMatch };

export interface PaymentCreation {
  /** The new payment and its events (`openPayment`). */
  readonly change: PaymentChange;
  /** Chain family of the deposit address (its lookup item is keyed by it). */
  readonly family: string;
  /** Tenant's daily limit in USD (null: none): the day's total is kept in the same transaction. */
  readonly dailyLimitUsd: Decimal | null;
  /**
   * The request's count, committed with the payment: the same write keeps the day's total (the tenant's usage item
   * of the day holds both). Without it the day's total is written alone.
   */
  readonly count?: UsageGuard | null;
  /** Writes that commit with the payment, given it as stored (the Idempotency-Key record and its answer). */
  readonly alsoWrite?: (stored: PaymentState) => readonly WriteItem[];
}

export interface PaymentRepository {
  get(tenantId: string, paymentId: string): Promise<PaymentState | null>;
  /**
   * The payment with its events, its deposit-address and checkout items, its history record and counters, the
   * day's total (DailyLimitError past the limit) and `alsoWrite`, in ONE transaction. Returns the stored state
   * (version 1).
   */
  create(creation: PaymentCreation, now: Date): Promise<PaymentState>;
  /**
   * Saves `change` of `previous` with its events and effects (the merchant's ledger entry) in ONE transaction,
   * conditioned on the version read: ConflictError when it moved (a deposit another pass recorded meanwhile
   * included), DepositAlreadyRecordedError when a store can tell that a recorded deposit is recorded again.
   * Returns the stored state (version bumped). `alsoWrite` commits with it (a refund opened with the credit).
   */
  save(previous: PaymentState, change: PaymentChange, now: Date, alsoWrite?: readonly WriteItem[]): Promise<PaymentState>;
  /** A tenant's payments from its per-tenant indexes (never a Scan), filtered: `skip` matches, then up to `take`. */
  list(query: PaymentQuery): Promise<PaymentState[]>;
  /** Every payment a tenant ever created. */
  count(tenantId: string): Promise<number>;
  /** How many of a tenant's payments match `filter`, counting at most `bound`. */
  countMatching(filter: PaymentFilter, bound: number): Promise<number>;
  /** Waiting payments due at or before `before`, up to `limit` per queue. */
  due(before: string, limit: number): Promise<PaymentState[]>;
  /** Payments a network's scanner follows (confirming, partially paid, confirmed, sending). */
  open(network: string): Promise<PaymentState[]>;
  /** Payments of a network waiting in its native coin (the scanner's balance check). */
  waitingNative(network: string): Promise<PaymentState[]>;
  /** Which of these addresses (in the family's address form) are deposit addresses: the scanner's deposit-address index. */
  matchAddresses(family: string, addresses: readonly string[]): Promise<AddressMatch[]>;
}

export interface PaymentsDeps {
  readonly payments: PaymentRepository;
  readonly rates: RatesDeps;
  readonly wallets: WalletDirectory;
  /** Deposit addresses, on the networks `served.payments` names. */
  readonly addresses: DepositAddressSource;
  readonly contracts: TokenContracts;
  /** What this deployment serves: a payment is taken only in a currency it serves. */
  readonly served: ServedNetworks;
  readonly settings: PaymentSettings;
  readonly clock: Clock;
  /** A payment's refunded total (the refunds' store); absent: a deployment or test without refunds, where it is 0. */
  readonly refunded?: (tenantId: string, paymentId: string) => Promise<Decimal>;
  /**
   * The refund a completing payment opens with its credit (a tenant's `auto_refund_excess`: the overpayment's excess;
   * shared/usecases/refunds/auto.ts), or null; absent: none is ever opened.
   */
  readonly excessRefund?: (payment: PaymentState, now: Date) => Promise<RefundWithCredit | null>;
  /**
   * The completion of a payment a payment link opened (shared/usecases/payment-links/completion.ts): whether it is
   * counted or over the link's limit, and the write that moves the link's counter in the payment's own transaction;
   * null for a payment of no link. Absent: no link is ever counted (a deployment or test without links).
   */
  readonly linkCompletion?: (payment: PaymentState) => Promise<LinkCompletion | null>;
  /**
   * The write that calls a subscription in when its period's payment completes, committed in the payment's own
   * transaction: the subscription becomes due now and its version moves (shared/store/subscription-call-in.ts).
   * Absent: no subscription is called in (a deployment or test without subscriptions).
   */
  readonly subscriptionCallIn?: (tenantId: string, subscriptionId: string, now: Date) => WriteItem;
}

/** A link's count moved with a completing payment: `overLimit` when the limit was reached before it (flagged). */
export interface LinkCompletion {
  readonly overLimit: boolean;
  readonly items: readonly WriteItem[];
}

/** A refund opened with a payment's credit: `hold` of the credit held for it, `items` its writes in the same transaction. */
export interface RefundWithCredit {
  readonly hold: Decimal;
  readonly items: readonly WriteItem[];
}

/** A sweep into the treasury of the deposits at some forwarders (their CREATE2 salts), one call. */
export interface SweepRequest {
  readonly reference: string;
  readonly network: string;
  readonly currency: string;
  /** Token contract; null for the native coin. */
  readonly token: string | null;
  readonly salts: readonly string[];
  /**
   * A batch's payments, `<tenant>:<payment>`, in salt order: what its request carries for its settlement. Absent for
   * a sweep of one thing named by its reference (a custody deposit's `custody:<tenant>:<deposit>`).
   */
  readonly items?: readonly string[];
}

/**
 * The call data of a sweep, so that no use case encodes ABI: the forwarder factory's call that sweeps `salts`'
 * forwarders, of `token` (0x-hex contract, as the VM takes it) or of the native coin (null). The TVM takes the same
 * call data. Adapter: `factoryCalls` (shared/chain/evm/factory-calls.ts).
 */
export interface SweepCalls {
  sweep(request: { readonly token: string | null; readonly salts: readonly string[] }): string;
}

/** `submitted`: its result comes later (the chain-tx engine's events); `done`: mined now. */
export type SweepOutcome = { readonly status: 'submitted' } | { readonly status: 'done'; readonly txHash: string };

/**
 * How deposits are swept: the chain-transaction engine (shared/usecases/payments/sweep-engine.ts), or a direct
 * factory call with the hot-wallet signer (shared/chain/evm/sweep-direct.ts: tests, local).
 */
export interface SweepPort {
  /** The most deposits one sweep takes (`SWEEP_BATCH_MAX_SALTS`; default `DEFAULT_SWEEP_BATCH_MAX`). */
  readonly maxSalts?: number;
  requestSweep(request: SweepRequest): Promise<SweepOutcome>;
  /**
   * The payments (`<tenant>:<payment>`) the sweep `reference` carries, for the recovery of its idle `sending`
   * payments: its request's items while it may sweep them or its result is on the way; none when it was never
   * requested (the reference is then claimed by a request that is never sent) or was cancelled before signing (a
   * batch of several that cannot be estimated is cancelled here). Absent where the port cannot tell (the direct
   * sweep): such payments stay `sending`, in sight of the stuck-sweep alarm.
   */
  carried?(network: string, reference: string): Promise<readonly string[]>;
}
