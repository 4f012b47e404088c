import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';
import { checkEvmAddress } from '../../domain/addresses.js';
import { NotFoundError } from '../../domain/errors.js';
import { checkoutUrl } from '../../domain/checkout.js';
import type { PaymentState } from '../../domain/payments.js';
import { isCancellable, transition as paymentTransition } from '../../domain/payments.js';
import type { SubscriptionChange, SubscriptionFact, SubscriptionState } from '../../domain/subscriptions.js';
import { COLLECTIONS, cyclePeriod, openSubscription, transition } from '../../domain/subscriptions.js';
import type { Tenant } from '../../domain/tenant.js';
import type { IdempotencyGuard, WriteItem } from '../ports.js';
import { createPayment } from '../payments/create-payment.js';
import type { SubscriptionsDeps } from './ports.js';
import { requirePlan } from './plans.js';
import { pullMandate } from './pull.js';

/**
 * Subscriptions (issue 30): creation, cancel, and the opening of a period's cycle, which both creation and the
 * advancer (./advance.ts) use. A cycle is an ORDINARY payment made by the payment use case (`createPayment`) for the
 * plan's price, committed in ONE transaction with the cycle record (keyed by the period: created once) and the
 * subscription's advance (conditioned on its version): a period is billed at most once, whoever races to open it.
 */

export const CreateSubscriptionBody = lazySchema(() =>
  z
    .object({
      plan_id: z.string().uuid('Not a plan id.'),
      customer_reference: z.string().trim().min(1).max(200).describe("The merchant's name for the customer (an account id)."),
      email: z.string().email().max(254).optional().describe("The customer's e-mail, carried by each period's payment."),
      collection: z
        .enum(COLLECTIONS)
        .describe(
          "push: each period opens a payment whose checkout_url the customer pays. pull: the subscriber's wallet (wallet_address) is charged each period by the collector contract it approves (EVM stablecoins priced in USD).",
        ),
      wallet_address: z
        .string()
        .trim()
        .optional()
        .describe('pull only (required): the EVM address of the wallet charged each period; the setup it signs names it.'),
    })
    .superRefine((value, ctx) => {
      const address = value.wallet_address;
      if (value.collection === 'push' && address !== undefined)
        ctx.addIssue({ code: 'custom', path: ['wallet_address'], message: 'Only a pull subscription charges a wallet; leave it out for push.' });
      if (value.collection !== 'pull') return;
      if (address === undefined) {
        ctx.addIssue({ code: 'custom', path: ['wallet_address'], message: 'A pull subscription needs the EVM address of the wallet it charges.' });
        return;
      }
      const check = checkEvmAddress(address);
      if (!check.valid) ctx.addIssue({ code: 'custom', path: ['wallet_address'], message: check.error });
      else if (check.warning) ctx.addIssue({ code: 'custom', path: ['wallet_address'], message: check.warning });
    })
    .meta({ id: 'CreateSubscription' }),
);
export type CreateSubscriptionBody = LazyOutput<typeof CreateSubscriptionBody>;

export const CancelSubscriptionBody = lazySchema(() =>
  z
    .object({ at_period_end: z.boolean().optional().describe('true: the subscription ends with its current period; false (default): now.') })
    .meta({ id: 'CancelSubscription' }),
);

export const SubscriptionPath = lazySchema(() => z.object({ subscription_id: z.string().uuid('Not a subscription id.') }));

/** The times a subscription use case works with: the real one (stored records) and the tenant's (its test clock). */
export interface Now {
  readonly real: Date;
  readonly tenant: Date;
}

export async function nowFor(tenantId: string, real: Date, deps: Pick<SubscriptionsDeps, 'clocks'>): Promise<Now> {
  return { real, tenant: new Date(real.getTime() + (await deps.clocks.offsetMs(tenantId))) };
}

const merge = (first: SubscriptionChange | null, then: SubscriptionChange): SubscriptionChange =>
  first ? { state: then.state, events: [...first.events, ...then.events], cycle: then.cycle } : then;

/**
 * Opens the next period's cycle of `state` (read as `previous`; null: created in the same transaction, `prior` its
 * creation change): its payment, the cycle record and the subscription's advance, committed together.
 */
export async function openCycle(
  args: {
    readonly previous: SubscriptionState | null;
    readonly state: SubscriptionState;
    readonly prior: SubscriptionChange | null;
    readonly tenant: Tenant;
    readonly now: Now;
    readonly origin: string;
    readonly alsoWrite?: (stored: SubscriptionState) => readonly WriteItem[];
  },
  deps: SubscriptionsDeps,
): Promise<SubscriptionState> {
  const { state: s, now } = args;
  const index = s.cycleIndex + 1;
  const period = cyclePeriod(s, index);
  // The payment stays payable until the cycle lapses: its due time plus the grace days, on the tenant's clock.
  const expiryMinutes = Math.max(1, Math.ceil((period.expiresAt.getTime() - now.tenant.getTime()) / 60_000));
  let stored: SubscriptionState | null = null;
  const alsoWrite = (payment: PaymentState): readonly WriteItem[] => {
    const fact: SubscriptionFact = { kind: 'open_cycle', paymentId: payment.id, checkoutUrl: checkoutUrl(args.origin, payment.checkoutId) };
    const change = merge(args.prior, transition(s, fact, now.tenant));
    const writes = deps.subscriptions.changeItems(args.previous, change, now.real);
    stored = writes.stored;
    return [...writes.items, ...(args.alsoWrite?.(writes.stored) ?? [])];
  };
  await createPayment(
    {
      body: {
        price_amount: s.terms.amount,
        price_currency: s.terms.priceCurrency,
        currency: s.terms.currency,
        expiry_minutes: expiryMinutes,
        order_description: `Subscription ${s.id}, period ${index + 1}`,
        ...(s.email === null ? {} : { customer_email: s.email }),
      },
      tenant: args.tenant,
      now: now.real,
      subscription: { id: s.id, cycle: index, alsoWrite },
    },
    deps.payments,
  );
  if (stored === null) throw new Error('the cycle was not written');
  return stored;
}

export async function createSubscription(
  input: {
    readonly tenant: Tenant;
    readonly body: CreateSubscriptionBody;
    readonly now: Date;
    readonly origin: string;
    readonly idempotency: IdempotencyGuard<SubscriptionState> | null;
  },
  deps: SubscriptionsDeps,
): Promise<SubscriptionState> {
  const { body, tenant } = input;
  const plan = await requirePlan(tenant.id, body.plan_id, deps);
  const now = await nowFor(tenant.id, input.now, deps);
  const id = randomUUID();
  const mandate =
    body.collection === 'pull' ? await pullMandate({ subscriptionId: id, plan, walletAddress: body.wallet_address ?? '', now: now.tenant }, deps) : undefined;
  const created = openSubscription(
    {
      id,
      tenantId: tenant.id,
      plan,
      customerReference: body.customer_reference,
      email: body.email ?? null,
      collection: body.collection,
      ...(mandate ? { mandate } : {}),
    },
    now.tenant,
  );
  const guard = input.idempotency;
  const alsoWrite = guard ? (stored: SubscriptionState) => [guard.completeItem(stored)] : undefined;
  // Trialing, or pull (its first charge waits for the mandate on chain: ./pull.ts): no cycle opens now.
  if (created.state.status === 'trialing' || mandate) return deps.subscriptions.save(null, created, now.real, alsoWrite);
  return openCycle({ previous: null, state: created.state, prior: created, tenant, now, origin: input.origin, ...(alsoWrite ? { alsoWrite } : {}) }, deps);
}

export async function requireSubscription(tenantId: string, id: string, deps: Pick<SubscriptionsDeps, 'subscriptions'>): Promise<SubscriptionState> {
  const s = await deps.subscriptions.get(tenantId, id);
  if (!s) throw new NotFoundError('No such subscription.');
  return s;
}

/**
 * Ends a subscription: now (its open cycle's payment cancelled in the same transaction while nothing was paid to it),
 * or at its period's end. Also the advancer's end of a period with `cancel_at_period_end`.
 */
export async function endSubscription(
  s: SubscriptionState,
  fact: Extract<SubscriptionFact, { kind: 'cancel' | 'end_period' }>,
  now: Now,
  deps: Pick<SubscriptionsDeps, 'subscriptions' | 'payments'>,
  alsoWrite?: (stored: SubscriptionState) => readonly WriteItem[],
): Promise<SubscriptionState> {
  const change = transition(s, fact, now.tenant);
  const paymentId = s.openCycle?.paymentId ?? null;
  const open = change.state.status === 'canceled' && paymentId ? await deps.payments.payments.get(s.tenantId, paymentId) : null;
  if (open && isCancellable(open)) {
    const writes = deps.subscriptions.changeItems(s, change, now.real);
    await deps.payments.payments.save(open, paymentTransition(open, { kind: 'cancel' }, now.real), now.real, [
      ...writes.items,
      ...(alsoWrite?.(writes.stored) ?? []),
    ]);
    return writes.stored;
  }
  return deps.subscriptions.save(s, change, now.real, alsoWrite);
}

export async function cancelSubscription(
  input: {
    readonly tenantId: string;
    readonly id: string;
    readonly atPeriodEnd: boolean;
    readonly now: Date;
    readonly idempotency: IdempotencyGuard<SubscriptionState> | null;
  },
  deps: SubscriptionsDeps,
): Promise<SubscriptionState> {
  const s = await requireSubscription(input.tenantId, input.id, deps);
  const guard = input.idempotency;
  const now = await nowFor(input.tenantId, input.now, deps);
  return endSubscription(s, { kind: 'cancel', atPeriodEnd: input.atPeriodEnd }, now, deps, guard ? (stored) => [guard.completeItem(stored)] : undefined);
}
