import type { PlanInterval, PlanState } from '../../domain/plans.js';
import type { Decimal } from '../../domain/money.js';
import type { CycleRecord, PullMandate, SubscriptionChange, SubscriptionState, SubscriptionStatus } from '../../domain/subscriptions.js';
import type { Tenant } from '../../domain/tenant.js';
import type { WriteItem } from '../ports.js';
import type { PaymentsDeps } from '../payments/ports.js';

/**
 * What the plan and subscription use cases need from outside (issue 30). `shared/runtime/subscriptions.ts` wires the
 * DynamoDB repositories (shared/store/plans.ts, shared/store/subscriptions.ts) and the payment use case's own deps.
 */

/** A page of a tenant's plans or subscriptions: newest first, after `cursor` (the record the previous page ended with). */
export interface PageQuery {
  readonly limit: number;
  readonly cursor?: { readonly createdAt: string; readonly id: string };
}

export interface PlanRepository {
  get(tenantId: string, planId: string): Promise<PlanState | null>;
  list(tenantId: string, query: PageQuery): Promise<{ readonly plans: PlanState[]; readonly more: boolean }>;
  /** Stores a new plan (version 1) with `alsoWrite` (the Idempotency-Key record) in ONE transaction. */
  create(plan: PlanState, alsoWrite?: (stored: PlanState) => readonly WriteItem[]): Promise<PlanState>;
}

export interface SubscriptionRepository {
  get(tenantId: string, id: string): Promise<SubscriptionState | null>;
  list(
    tenantId: string,
    query: PageQuery & { readonly status?: SubscriptionStatus },
  ): Promise<{ readonly subscriptions: SubscriptionState[]; readonly more: boolean }>;
  /** The subscription's cycles, oldest first. */
  cycles(tenantId: string, id: string): Promise<CycleRecord[]>;
  /**
   * The writes of `change` (the subscription's versioned put, conditioned on `previous`'s version or on absence; its
   * events; its cycle record, a new one conditioned on its period's key being free), to commit in another
   * aggregate's transaction (the cycle's payment). Returns the subscription as it will be stored.
   */
  changeItems(previous: SubscriptionState | null, change: SubscriptionChange, now: Date): { readonly stored: SubscriptionState; readonly items: WriteItem[] };
  /** Commits `change` alone (with `alsoWrite`), in ONE transaction: ConflictError when the subscription or its period's key moved. */
  save(
    previous: SubscriptionState | null,
    change: SubscriptionChange,
    now: Date,
    alsoWrite?: (stored: SubscriptionState) => readonly WriteItem[],
  ): Promise<SubscriptionState>;
  /** Subscriptions whose next action is at or before `time`, oldest first, up to `limit`. */
  due(time: string, limit: number): Promise<Array<{ readonly tenantId: string; readonly id: string; readonly dueAt: string }>>;
}

/**
 * A tenant's test clock: an offset added to the real time for its subscriptions, honoured outside production only
 * (the production adapter answers 0 whatever is stored).
 */
export interface TenantClocks {
  offsetMs(tenantId: string): Promise<number>;
  /** The largest offset of any tenant (0 in production): how far ahead the advancer must look. */
  maxOffsetMs(): Promise<number>;
  set(tenantId: string, offsetMs: number): Promise<void>;
}

export interface SubscriptionsDeps {
  readonly plans: PlanRepository;
  readonly subscriptions: SubscriptionRepository;
  /** The ordinary payment use case's deps: each cycle opens a payment through `createPayment`. */
  readonly payments: PaymentsDeps;
  readonly tenants: { get(tenantId: string): Promise<Tenant | null> };
  readonly clocks: TenantClocks;
  /** The checkout page's origin (the deployment's public base URL; without one, the request's host). */
  readonly settings: { readonly publicBaseUrl: string | null };
  /** Pull mandates (creation, `setup`); absent where this deployment has no collector contract (pull refused). */
  readonly mandates?: Mandates;
  /** Pull collection (the advancer and the chain results only: shared/runtime/collector.ts). */
  readonly collector?: Collector;
}

/**
 * Pull collection's port (issue 30, docs/subscriptions-pull.md): the collector contract on the plan's network, as
 * shared/chain/evm/collector-port.ts implements it. The use cases call it; they never encode ABI. Caps are the plan's
 * amount in the token's base units, per charge and per period, enforced again by the contract.
 */
export interface Mandates {
  /**
   * The mandate's terms for a new pull subscription of `currency` (`start`: the anchor, in unix seconds), and the
   * units of one charge. A ValidationError (400) names why pull is not offered: the currency is not
   * an EVM stablecoin, or its network has no collector (or no chain, or no hot wallet) configured.
   */
  mandate(input: {
    readonly subscriptionId: string;
    readonly currency: string;
    readonly amount: Decimal;
    readonly subscriber: string;
    readonly interval: PlanInterval;
    readonly intervalCount: number;
    readonly start: number;
  }): Promise<{ readonly mandate: PullMandate; readonly units: string }>;
  /** What `POST /subscriptions/` answers as `setup`: the addresses, caps and call data the subscriber's wallet sends or signs. */
  setup(mandate: PullMandate): PullSetup;
}

/** What the workers (the advancer, the chain results) need beyond the mandates: the chain read, the charges and their outcomes. */
export interface Collector extends Mandates {
  /** Whether the chain shows the mandate authorised (not revoked) and the allowance covering a charge: the advancer activates on it. */
  approvalSeen(mandate: PullMandate): Promise<boolean>;
  /**
   * The period's charge, keyed by `reference` (the period's key), as writes committed in the transaction of the
   * subscription's advance, so a period is charged at most once: a charge pending its batch (`dispatchCharges`).
   */
  chargeItems(input: {
    readonly tenantId: string;
    readonly reference: string;
    readonly mandate: PullMandate;
    readonly period: number;
    readonly units: string;
  }): Promise<readonly WriteItem[]>;
  /**
   * Sends the pending charges: those of one network and token (one payee: the hot wallet) in ONE chain-tx request
   * (purpose `subscription_charge`, a `chargeBatch` of up to its most charges), created in the transaction that takes
   * them out of the pending ones. Its result comes back through the chain-results queue (`batchCharges`, `chargeOutcome`).
   */
  dispatchCharges(): Promise<{ readonly batches: number; readonly charges: number }>;
  /** The charge references (periods' keys) a batch's chain-tx request carries, in its order. */
  batchCharges(requestId: string): Promise<readonly string[]>;
  /** What a mined charge did, read from its receipt's logs (null: no outcome of this mandate in it). */
  chargeOutcome(input: {
    readonly network: string;
    readonly txHash: string;
    readonly mandate: PullMandate;
    readonly period: number;
  }): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string } | null>;
}

/** A pull subscription's `setup`, as the API answers it (numbers in base units as decimal strings). */
export interface PullSetup {
  readonly network: string;
  readonly chain_id: number;
  readonly collector: string;
  readonly token: string;
  readonly payee: string;
  readonly subscriber: string;
  readonly per_charge_cap: string;
  readonly per_period_cap: string;
  readonly period_seconds: number;
  readonly start: number;
  readonly salt: string;
  readonly mandate_id: string;
  readonly allowance: string;
  readonly calls: {
    readonly approve: { readonly to: string; readonly data: string };
    readonly authorize: { readonly to: string; readonly data: string };
  };
  readonly typed_data: Record<string, unknown>;
}
