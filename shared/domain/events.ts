import * as z from 'zod';
import { lazySchema } from './lazy-schema.js';
import type { QueueName } from './queues.js';
import type { DeliveryEvent, SubscriptionEvent } from './webhooks.js';

/**
 * The event catalogue: every outbox event type, ONCE, with its payload schema and the queues that consume it.
 * The event router's table is derived from it (`queuesFor`), producers name types through `EVENTS` and build
 * payloads the compiler checks (`eventDraft`, `emit` in shared/store/outbox.ts), and consumers parse the
 * router's messages with the same schemas (`parseRoutedEvent`).
 *
 * Payloads are JSON-like maps: amounts are decimal strings, counters safe integers. Every schema is loose
 * (`z.looseObject`): it checks the fields consumers rely on and keeps every other field (`callback_url`,
 * `flags`, `metadata`, ...), so no event loses data on its way to a receiver.
 *
 * A new event: add its schema to `buildPayloadSchemas`, a line to `EVENT_CATALOGUE` (with its consumers) and a name to `EVENTS`.
 */

/* ---------------------------------------------------------------- payload schemas */

/**
 * The payload schemas (some 250 zod schemas), built together when one is first used: an event written to the outbox
 * (shared/store/outbox.ts checks it) or a routed message parsed. A Lambda that only reads never builds them.
 */
function buildPayloadSchemas() {
  const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string');
  const count = z.number().int().nonnegative();

  /** `payment_status_update` and the `payment.*` family (spec 6.1 / 6.2): the payment as the merchant sees it. */
  const PaymentStatusPayload = z.looseObject({
    transaction_id: z.string().min(1),
    status: z.string().min(1),
    /** Null on `payment.created`: a new payment has no previous status. */
    previous_status: z.string().nullable(),
    pay_amount: decimal,
    pay_currency: z.string().min(1),
    price_amount: decimal.nullable().optional(),
    price_currency: z.string().nullable().optional(),
    confirmations: count.optional(),
    flags: z.array(z.string()).optional(),
    /** A payment a payment link opened: the link (absent otherwise). */
    payment_link_id: z.string().optional(),
    /** A payment a subscription opened for one of its periods: the subscription and the period's index (absent otherwise). */
    subscription_id: z.string().optional(),
    subscription_cycle: count.optional(),
    callback_url: z.string().nullable().optional(),
  });

  /** `deposit_received`: one deposit seen on chain for a payment. */
  const DepositReceivedPayload = z.looseObject({
    transaction_id: z.string().min(1),
    deposit_id: z.string().min(1),
    amount: decimal,
    currency: z.string().min(1),
    transaction_hash: z.string().min(1),
    confirmations: count,
    blockchain_network: z.string().min(1),
    /** Bitcoin: seen unconfirmed in a transaction that signals BIP125 replaceability (it may yet be replaced). */
    replaceable: z.boolean().optional(),
    callback_url: z.string().nullable().optional(),
  });

  /** `deposit_merged`: a credited deposit swept from its forwarder. */
  const DepositMergedPayload = z.looseObject({
    transaction_id: z.string().min(1),
    deposit_id: z.string().min(1),
    amount: decimal,
    currency: z.string().min(1),
    sweep_transaction_hash: z.string().min(1),
    blockchain_network: z.string().min(1),
    callback_url: z.string().nullable().optional(),
  });

  /** `withdrawal_status_update` and the `withdrawal.*` family: the withdrawal as the merchant sees it. */
  const WithdrawalStatusPayload = z.looseObject({
    withdrawal_id: z.string().min(1),
    status: z.string().min(1),
    previous_status: z.string().nullable(),
    amount: decimal,
    currency: z.string().min(1),
    address: z.string().min(1),
    total_deducted: decimal.optional(),
    transaction_hash: z.string().nullable().optional(),
    callback_url: z.string().nullable().optional(),
  });

  /** `wallet.created`. */
  const WalletPayload = z.looseObject({ wallet_id: z.string().min(1) });

  const walletAmounts = { amount: decimal, pending_amount: decimal, available_balance: decimal, locked_amount: decimal };

  /** `wallet.balance_changed`: a wallet's balance in one currency after a change, what the change was and its cause. */
  const WalletBalancePayload = z.looseObject({
    wallet_id: z.string().min(1),
    currency: z.string().min(1),
    ...walletAmounts,
    change: z.looseObject(walletAmounts),
    cause: z.string().min(1),
    entry_id: z.string().min(1),
  });

  /** `wallet_transfer_status_update` (envelope A, to the transfer's callback_url) and the worker's `wallet_transfer.accepted`. */
  const WalletTransferPayload = z.looseObject({
    transfer_id: z.string().min(1),
    status: z.string().min(1),
    previous_status: z.string().nullable(),
    transfer_type: z.string().min(1),
    wallet_id: z.string().min(1),
    currency: z.string().min(1),
    amount: decimal,
    callback_url: z.string().nullable().optional(),
  });

  /** `security.login_attempt`: a token request for a known client with a wrong secret. */
  const LoginAttemptPayload = z.looseObject({
    client_id: z.string().min(1),
    success: z.boolean(),
    reason: z.string().min(1),
    attempted_at: z.string().min(1),
  });

  /** `security.settings_changed`: which setting changed and through which credential, plus the change's detail. */
  const SettingsChangedPayload = z.looseObject({ setting: z.string().min(1), credential: z.string().min(1).optional() });

  /** `chain_tx.requested` (shared/usecases/chain-tx/request-chain-tx.ts): a request to sign and broadcast. */
  const ChainTxRequestedPayload = z.looseObject({
    request_id: z.string().min(1),
    network: z.string().min(1),
    reference: z.string().min(1),
    purpose: z.string().min(1),
  });

  /**
   * `chain_tx.confirmed` / `chain_tx.failed` (shared/domain/chain-tx.ts): the outcome of a request. The engine
   * writes every field; consumers rely on the request, its purpose and `tx_hash` (null when nothing was mined).
   */
  const ChainTxResultPayload = z.looseObject({
    request_id: z.string().min(1),
    network: z.string().min(1),
    reference: z.string().min(1),
    purpose: z.string().min(1),
    status: z.enum(['confirmed', 'reverted', 'failed']).optional(),
    tx_hash: z.string().min(1).nullable(),
    block_number: count.nullable().optional(),
    gas_used: z.string().regex(/^\d+$/).nullable().optional(),
    nonce: count.nullable().optional(),
    tx_hashes: z.array(z.string()).optional(),
    failure: z.string().nullable().optional(),
  });

  /** `transaction_export.requested` (shared/domain/exports.ts): an export job to run, for the transaction-exports worker. */
  const TransactionExportPayload = z.looseObject({
    export_id: z.string().min(1),
    format: z.string().min(1),
  });

  /** `custody_deposit_update` (envelope A, the tenant's default URL): a custody deposit detected, credited or dropped. */
  const CustodyDepositPayload = z.looseObject({
    deposit_id: z.string().min(1),
    account_id: z.string().min(1),
    blockchain: z.string().min(1),
    amount: decimal,
    transaction_hash: z.string().min(1),
    status: z.string().min(1),
    previous_status: z.string().nullable(),
  });
  /** `custody_withdrawal_update` (envelope A): a custody account's withdrawal as its custody record shows it. */
  const CustodyWithdrawalPayload = z.looseObject({
    withdrawal_id: z.string().min(1),
    account_id: z.string().min(1),
    blockchain: z.string().min(1),
    currency: z.string().min(1),
    amount: decimal,
    fee: decimal,
    net_amount: decimal,
    destination_address: z.string().min(1),
    status: z.string().min(1),
    previous_status: z.string().nullable(),
    transaction_hash: z.string().nullable().optional(),
    callback_url: z.string().nullable().optional(),
  });
  /**
   * `refund_status_update` and the `refund.*` family: a refund of a payment as the merchant sees it (shared/domain/refunds.ts
   * `refundPayload` writes every field of the record; the schema checks those consumers rely on, kept short: every Lambda carries it).
   */
  const RefundStatusPayload = z.looseObject({ refund_id: z.string().min(1), payment_id: z.string().min(1), status: z.string().min(1), amount: decimal });
  // Issue 30, subscriptions: `subscription_status_update` and the `subscription.*` family (shared/domain/subscriptions.ts `subscriptionPayload`).
  const SubscriptionPayload = z.looseObject({
    subscription_id: z.string().min(1),
    plan_id: z.string().min(1),
    status: z.string().min(1),
    cycle: z.number().int(),
  });
  return {
    SubscriptionPayload,
    PaymentStatusPayload,
    RefundStatusPayload,
    DepositReceivedPayload,
    DepositMergedPayload,
    WithdrawalStatusPayload,
    WalletPayload,
    WalletBalancePayload,
    WalletTransferPayload,
    LoginAttemptPayload,
    SettingsChangedPayload,
    ChainTxRequestedPayload,
    ChainTxResultPayload,
    TransactionExportPayload,
    CustodyDepositPayload,
    CustodyWithdrawalPayload,
  };
}

type PayloadSchemas = ReturnType<typeof buildPayloadSchemas>;
let payloadSchemas: PayloadSchemas | undefined;
const schemaOf = <K extends keyof PayloadSchemas>(name: K): PayloadSchemas[K] => (payloadSchemas ??= buildPayloadSchemas())[name];

/* ---------------------------------------------------------------- the catalogue */

export type EventAudience = 'tenant' | 'internal';

export interface EventDefinition {
  /** `tenant`: a webhook event (spec 6.1 / 6.2); `internal`: heard only by the gateway's own workers. */
  readonly audience: EventAudience;
  readonly payload: z.ZodType<Record<string, unknown>>;
  /** The queues the event router sends the event to. */
  readonly consumers: readonly QueueName[];
}

/** A catalogue entry whose payload schema is built on first use (`schemaOf`). */
const entry = <const A extends EventAudience, K extends keyof PayloadSchemas, const Q extends readonly QueueName[]>(audience: A, schema: K, consumers: Q) =>
  ({
    audience,
    get payload(): PayloadSchemas[K] {
      return schemaOf(schema);
    },
    consumers,
  }) as const;
/** Every tenant-visible event goes to `webhook-delivery`, which decides per tenant and subscription where it goes. */
const tenant = <K extends keyof PayloadSchemas>(schema: K) => entry('tenant', schema, ['webhook-delivery']);
const internal = <K extends keyof PayloadSchemas, const Q extends readonly QueueName[]>(schema: K, consumers: Q) => entry('internal', schema, consumers);

export const EVENT_CATALOGUE = {
  // Section 6.1, envelope A.
  payment_status_update: tenant('PaymentStatusPayload'),
  deposit_received: tenant('DepositReceivedPayload'),
  withdrawal_status_update: tenant('WithdrawalStatusPayload'),
  deposit_merged: tenant('DepositMergedPayload'),
  wallet_transfer_status_update: tenant('WalletTransferPayload'),
  custody_deposit_update: tenant('CustodyDepositPayload'),
  custody_withdrawal_update: tenant('CustodyWithdrawalPayload'),
  // DESIGN section 12: refunds, envelope A to the payment's callback_url or the default URL.
  refund_status_update: tenant('RefundStatusPayload'),
  // Section 6.2, envelope B (the `.all` names are subscriptions, never events).
  // A payment just created also wakes its network's scanner (functions/chain-scanner), which may have stopped for lack of work.
  'payment.created': entry('tenant', 'PaymentStatusPayload', ['webhook-delivery', 'scanner-wake']),
  'payment.processing': tenant('PaymentStatusPayload'),
  'payment.completed': tenant('PaymentStatusPayload'),
  'payment.failed': tenant('PaymentStatusPayload'),
  'payment.expired': tenant('PaymentStatusPayload'),
  'withdrawal.created': tenant('WithdrawalStatusPayload'),
  'withdrawal.approved': tenant('WithdrawalStatusPayload'),
  'withdrawal.processing': tenant('WithdrawalStatusPayload'),
  'withdrawal.completed': tenant('WithdrawalStatusPayload'),
  'withdrawal.failed': tenant('WithdrawalStatusPayload'),
  'withdrawal.cancelled': tenant('WithdrawalStatusPayload'),
  'withdrawal.status_changed': tenant('WithdrawalStatusPayload'),
  'refund.created': tenant('RefundStatusPayload'),
  'refund.completed': tenant('RefundStatusPayload'),
  'refund.failed': tenant('RefundStatusPayload'),
  'wallet.created': tenant('WalletPayload'),
  'wallet.balance_changed': tenant('WalletBalancePayload'),
  'security.login_attempt': tenant('LoginAttemptPayload'),
  'security.settings_changed': tenant('SettingsChangedPayload'),
  // Issue 30, subscriptions: envelope A to the default URL, and the `subscription.*` family.
  subscription_status_update: tenant('SubscriptionPayload'),
  'subscription.created': tenant('SubscriptionPayload'),
  'subscription.activated': tenant('SubscriptionPayload'),
  'subscription.cycle_opened': tenant('SubscriptionPayload'),
  'subscription.renewed': tenant('SubscriptionPayload'),
  'subscription.past_due': tenant('SubscriptionPayload'),
  'subscription.canceled': tenant('SubscriptionPayload'),
  'subscription.expired': tenant('SubscriptionPayload'),
  // Internal: the chain-transaction engine.
  // A request also wakes its network's follower (functions/chain-tx-follower), which may have stopped for lack of work.
  'chain_tx.requested': internal('ChainTxRequestedPayload', ['transfers', 'follower-wake']),
  'chain_tx.confirmed': internal('ChainTxResultPayload', ['chain-results']),
  'chain_tx.failed': internal('ChainTxResultPayload', ['chain-results']),
  // Internal: a wallet transfer accepted, for the worker that settles it.
  'wallet_transfer.accepted': internal('WalletTransferPayload', ['wallet-transfers']),
  // Internal: a transaction export requested, for the worker that writes its file.
  'transaction_export.requested': internal('TransactionExportPayload', ['transaction-exports']),
} as const satisfies Readonly<Record<string, EventDefinition>>;

type Catalogue = typeof EVENT_CATALOGUE;
export type EventType = keyof Catalogue;
/** What a producer writes for `T` (extra fields allowed). */
export type EventPayload<T extends EventType> = z.input<Catalogue[T]['payload']>;
/** What a consumer reads for `T` after parsing. */
export type ParsedEventPayload<T extends EventType> = z.output<Catalogue[T]['payload']>;
export type TenantEventType = { [T in EventType]: Catalogue[T]['audience'] extends 'tenant' ? T : never }[EventType];
export type InternalEventType = Exclude<EventType, TenantEventType>;

/** The names producers write instead of string literals. */
export const EVENTS = {
  paymentStatusUpdate: 'payment_status_update',
  depositReceived: 'deposit_received',
  withdrawalStatusUpdate: 'withdrawal_status_update',
  depositMerged: 'deposit_merged',
  walletTransferStatusUpdate: 'wallet_transfer_status_update',
  custodyDepositUpdate: 'custody_deposit_update',
  custodyWithdrawalUpdate: 'custody_withdrawal_update',
  refundStatusUpdate: 'refund_status_update',
  paymentCreated: 'payment.created',
  paymentProcessing: 'payment.processing',
  paymentCompleted: 'payment.completed',
  paymentFailed: 'payment.failed',
  paymentExpired: 'payment.expired',
  withdrawalCreated: 'withdrawal.created',
  withdrawalApproved: 'withdrawal.approved',
  withdrawalProcessing: 'withdrawal.processing',
  withdrawalCompleted: 'withdrawal.completed',
  withdrawalFailed: 'withdrawal.failed',
  withdrawalCancelled: 'withdrawal.cancelled',
  withdrawalStatusChanged: 'withdrawal.status_changed',
  refundCreated: 'refund.created',
  refundCompleted: 'refund.completed',
  refundFailed: 'refund.failed',
  walletCreated: 'wallet.created',
  walletBalanceChanged: 'wallet.balance_changed',
  securityLoginAttempt: 'security.login_attempt',
  securitySettingsChanged: 'security.settings_changed',
  chainTxRequested: 'chain_tx.requested',
  chainTxConfirmed: 'chain_tx.confirmed',
  chainTxFailed: 'chain_tx.failed',
  walletTransferAccepted: 'wallet_transfer.accepted',
  transactionExportRequested: 'transaction_export.requested',
  // Issue 30, subscriptions.
  subscriptionStatusUpdate: 'subscription_status_update',
  subscriptionCreated: 'subscription.created',
  subscriptionActivated: 'subscription.activated',
  subscriptionCycleOpened: 'subscription.cycle_opened',
  subscriptionRenewed: 'subscription.renewed',
  subscriptionPastDue: 'subscription.past_due',
  subscriptionCanceled: 'subscription.canceled',
  subscriptionExpired: 'subscription.expired',
} as const satisfies Readonly<Record<string, EventType>>;

// Compile-time completeness: every webhook event of shared/domain/webhooks.ts has its line in the catalogue and a name.
type WebhookEventType = DeliveryEvent | Exclude<SubscriptionEvent, `${string}.all`>;
const everyWebhookEventCatalogued: Exclude<WebhookEventType, TenantEventType> extends never ? true : never = true;
const everyEventNamed: Exclude<EventType, (typeof EVENTS)[keyof typeof EVENTS]> extends never ? true : never = true;
void everyWebhookEventCatalogued;
void everyEventNamed;

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

/** The webhook events (what webhook-delivery receives): parse its messages with `parseRoutedEvent(body, TENANT_EVENT_TYPES)`. */
export const TENANT_EVENT_TYPES = EVENT_TYPES.filter((t): t is TenantEventType => EVENT_CATALOGUE[t].audience === 'tenant');

/**
 * The `withdrawal.*` family event of a withdrawal status (`withdrawal.processing`, ...), or null for a status
 * without one (`pending` is announced as `withdrawal.created`).
 */
export function withdrawalFamilyEvent(status: string): TenantEventType | null {
  const type = `withdrawal.${status}`;
  return TENANT_EVENT_TYPES.find((t) => t === type && t !== EVENTS.withdrawalCreated) ?? null;
}

/**
 * The `refund.*` family event a refund sends when it enters a status (beside `refund_status_update`, which every change
 * sends): `refund.completed`, and `refund.failed` for every end without payout (failed, cancelled, expired; its data's
 * `status` says which); none for the statuses between (creation is `refund.created`).
 */
export function refundFamilyEvent(status: string): TenantEventType | null {
  if (status === 'completed') return EVENTS.refundCompleted;
  return status === 'failed' || status === 'cancelled' || status === 'expired' ? EVENTS.refundFailed : null;
}

/**
 * The `payment.*` family event (spec 6.2) a payment sends when it enters each status, beside
 * `payment_status_update` (6.1) which every change sends. The 6.2 catalogue has no `payment.cancelled`: a
 * cancelled payment will never complete, so it is announced as `payment.failed` with `status: "cancelled"`; nor
 * a `payment.partially_paid`: an underpaid payment stays open for a top-up, so it is announced as
 * `payment.processing` with `status: "partially_paid"`. Every status change thus reaches `payment.all`.
 */
export const PAYMENT_STATUS_EVENTS = {
  waiting: EVENTS.paymentCreated,
  confirming: EVENTS.paymentProcessing,
  confirmed: EVENTS.paymentProcessing,
  sending: EVENTS.paymentProcessing,
  completed: EVENTS.paymentCompleted,
  failed: EVENTS.paymentFailed,
  expired: EVENTS.paymentExpired,
  cancelled: EVENTS.paymentFailed,
  partially_paid: EVENTS.paymentProcessing,
} as const satisfies Readonly<Record<string, TenantEventType | null>>;

/** What the payment lifecycle sends: creation sends `payment.created`, every status change `payment_status_update` plus its family event. */
export const PAYMENT_CREATION_EVENTS = [EVENTS.paymentCreated] as const;
export const PAYMENT_CHANGE_EVENTS = [EVENTS.paymentStatusUpdate] as const;

/**
 * What the withdrawal lifecycle sends: creation sends `withdrawal.created`, `withdrawal_status_update` and
 * `withdrawal.status_changed`; every status change `withdrawal_status_update`, `withdrawal.status_changed`
 * and its family event (`withdrawalFamilyEvent`).
 */
export const WITHDRAWAL_CREATION_EVENTS = [EVENTS.withdrawalCreated, EVENTS.withdrawalStatusUpdate, EVENTS.withdrawalStatusChanged] as const;
export const WITHDRAWAL_CHANGE_EVENTS = [EVENTS.withdrawalStatusUpdate, EVENTS.withdrawalStatusChanged] as const;

export const isEventType = (type: string): type is EventType => Object.hasOwn(EVENT_CATALOGUE, type);

/** The queues that consume `type`; none for a type the catalogue does not know. */
export function queuesFor(type: string): readonly QueueName[] {
  return isEventType(type) ? EVENT_CATALOGUE[type].consumers : [];
}

/** The event router's table, derived from the catalogue: event type -> consumer queues. */
export const EVENT_ROUTES: Readonly<Record<string, readonly QueueName[]>> = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, EVENT_CATALOGUE[type].consumers]),
);

/** Thrown for a payload that does not match its event type's schema (a producer's or sender's bug). */
export class InvalidEventError extends TypeError {
  constructor(type: string, issues: string) {
    super(`Invalid ${type} event: ${issues}`);
    this.name = 'InvalidEventError';
  }
}

const issuesOf = (error: z.ZodError): string => error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');

/** Checks a payload against the schema of its type (unknown types are refused). */
export function parseEventPayload<T extends EventType>(type: T, payload: unknown): ParsedEventPayload<T>;
export function parseEventPayload(type: string, payload: unknown): Record<string, unknown>;
export function parseEventPayload(type: string, payload: unknown): Record<string, unknown> {
  if (!isEventType(type)) throw new InvalidEventError(type, 'not in the event catalogue');
  const result = EVENT_CATALOGUE[type].payload.safeParse(payload);
  if (!result.success) throw new InvalidEventError(type, issuesOf(result.error));
  return result.data;
}

/**
 * An event an aggregate announces: its type, its natural key within the aggregate (the outbox id is built from
 * it, so a replayed change writes the same event) and a payload the compiler checks against the catalogue.
 */
export interface EventDraft<T extends EventType = EventType> {
  readonly type: T;
  readonly key: string;
  readonly payload: EventPayload<T>;
}

export const eventDraft = <T extends EventType>(type: T, key: string, payload: EventPayload<T>): EventDraft<T> => ({ type, key, payload });

/* ---------------------------------------------------------------- outbox events */

export type OutboxPayload = Readonly<Record<string, unknown>>;

/** An event as the outbox stores it (one of the events of a change's outbox item, shared/store/outbox.ts) and the event router reads it back. */
export interface OutboxEvent<P extends OutboxPayload = OutboxPayload> {
  readonly eventId: string;
  readonly tenantId: string;
  /** Event type, e.g. `payment_status_update`, `payment.completed` (the catalogue's keys). */
  readonly type: string;
  readonly occurredAt: string;
  readonly payload: P;
}

/* ---------------------------------------------------------------- routed messages */

/** The body the event router sends to a queue: the outbox event with its id (shared/usecases/events/route-events.ts). */
export const RoutedEventEnvelope = lazySchema(() =>
  z.object({
    event_id: z.string().min(1),
    tenant_id: z.string().min(1),
    type: z.string().min(1),
    occurred_at: z.string().min(1),
    payload: z.record(z.string(), z.unknown()),
  }),
);

/** A routed message of one of the types `T`, its payload parsed (distributes over `T`, so `type` narrows `payload`). */
export type RoutedEvent<T extends EventType = EventType> = T extends EventType
  ? { readonly event_id: string; readonly tenant_id: string; readonly type: T; readonly occurred_at: string; readonly payload: ParsedEventPayload<T> }
  : never;

/** Parses a routed message (already JSON-decoded) that must be one of `accepted`; throws InvalidEventError otherwise. */
export function parseRoutedEvent<const T extends EventType>(body: unknown, accepted: readonly T[]): RoutedEvent<T> {
  const envelope = RoutedEventEnvelope().safeParse(body);
  if (!envelope.success) throw new InvalidEventError('routed', issuesOf(envelope.error));
  const { type } = envelope.data;
  if (!(accepted as readonly string[]).includes(type)) throw new InvalidEventError(type, `not one of ${accepted.join(', ')}`);
  return { ...envelope.data, payload: parseEventPayload(type, envelope.data.payload) } as RoutedEvent<T>;
}

/**
 * The events of `accepted` among raw message bodies (a wake queue's batch): a body that is not JSON or not such an
 * event is left out, not thrown (it wakes nothing and is not retried).
 */
export function routedEventsIn<const T extends EventType>(bodies: readonly string[], accepted: readonly T[]): RoutedEvent<T>[] {
  const events: RoutedEvent<T>[] = [];
  for (const body of bodies) {
    try {
      events.push(parseRoutedEvent(JSON.parse(body), accepted));
    } catch (error) {
      if (!(error instanceof SyntaxError || error instanceof InvalidEventError)) throw error;
    }
  }
  return events;
}

/* ---------------------------------------------------------------- chain results */

/** What a chain-tx request is for (its `purpose`): the consumer of its result dispatches on it. */
export const CHAIN_TX_PURPOSES = {
  sweep: 'sweep',
  withdrawal: 'withdrawal',
  /** A batch payout of several withdrawals (shared/usecases/withdrawals/batch.ts). */
  withdrawalBatch: 'withdrawal_batch',
  /** The hot wallet's approval of the batch payout contract for a token (nothing to settle). */
  batchPayoutApproval: 'batch_payout_approval',
  /** A pull subscription's charge of one period (shared/usecases/subscriptions/charges.ts). */
  subscriptionCharge: 'subscription_charge',
} as const;

export const CHAIN_RESULT_EVENTS = [EVENTS.chainTxConfirmed, EVENTS.chainTxFailed] as const;
export type ChainResultEvent = RoutedEvent<(typeof CHAIN_RESULT_EVENTS)[number]>;

/** The outcome of a chain transaction: confirmed with a mined hash, or not (failed, reverted, or nothing mined). */
export type ChainResult = { readonly ok: true; readonly txHash: string } | { readonly ok: false; readonly failure: string | null };

/** Decided here once: only a `chain_tx.confirmed` with a mined hash is a success. */
export function chainResultOf(event: Pick<ChainResultEvent, 'type' | 'payload'>): ChainResult {
  const { tx_hash: txHash, failure } = event.payload;
  if (event.type === EVENTS.chainTxConfirmed && txHash !== null) return { ok: true, txHash };
  return { ok: false, failure: failure ?? null };
}
