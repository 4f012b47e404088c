import type { PlanState } from '../../domain/plans.js';
import type { CycleRecord, SubscriptionChange, SubscriptionState, SubscriptionStatus } from '../../domain/subscriptions.js';
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
}

/**
 * Pull collection's port (issue 30; designed, not yet wired: `collection: "pull"` is refused until a chain adapter in
 * shared/chain/evm implements it over the collector contract). The use case calls it; it never encodes ABI. Caps are
 * the plan's amount per charge and per period, enforced again by the contract.
 */
export interface Collector {
  /**
   * What `POST /subscriptions/` answers as `setup` for a pull subscription: the collector and token addresses on the
   * plan's network, the caps in the token's units, and the calldata the subscriber signs (the approval, and the
   * registration that ties the subscriber's address to the subscription so its approval can be told from others').
   */
  setup(input: { readonly subscriptionId: string; readonly currency: string; readonly amount: string }): Promise<{
    readonly network: string;
    readonly collector: string;
    readonly token: string;
    readonly perChargeCap: string;
    readonly perPeriodCap: string;
    readonly calls: readonly { readonly to: string; readonly data: string }[];
  }>;
  /** The subscriber's registration and allowance as the chain shows them (null: not seen yet): the advancer activates on it. */
  approvalSeen(input: { readonly subscriptionId: string; readonly currency: string }): Promise<{ readonly owner: string; readonly allowance: string } | null>;
  /**
   * The period's charge, keyed by `reference` (the period's key): the chain-tx request that makes the collector
   * transfer `amount` from `owner`, as writes committed in the transaction of the subscription's advance, so a period
   * is charged at most once; its result comes back through the chain-results queue as a cycle paid or failed.
   */
  chargeItems(input: { readonly reference: string; readonly currency: string; readonly owner: string; readonly amount: string }): readonly WriteItem[];
}
