import * as z from 'zod';
import { findNetwork } from '../../domain/currencies.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { parseDecimal } from '../../domain/money.js';
import type { PaymentState, PaymentStatus } from '../../domain/payments.js';
import { LIST_FILTER_STATUSES } from '../../domain/payments.js';
import { checkQueryForms, decimal, queryInteger } from '../schema.js';
import type { PaymentFilter, PaymentQuery, PaymentsDeps } from './ports.js';
import type { PaymentLinks } from './present.js';
import { listItem } from './present.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** `GET /payments/{id}/`, `POST /payments/status/` and `GET /payments/` (variants A and B, DESIGN section 10). */

export async function requirePayment(
  tenantId: string,
  paymentId: string,
  deps: { readonly payments: Pick<PaymentsDeps['payments'], 'get'> },
): Promise<PaymentState> {
  const parsed = z.string().uuid().safeParse(paymentId);
  const payment = parsed.success ? await deps.payments.get(tenantId, paymentId) : null;
  if (!payment) throw new NotFoundError('Payment not found.', { transaction_id: paymentId });
  return payment;
}

export const StatusBody = lazySchema(() => z.object({ transaction_id: z.string().uuid() }).meta({ id: 'PaymentStatusRequest' }));

const isoDate = lazySchema(() =>
  z
    .string()
    .refine((v) => !Number.isNaN(Date.parse(v)), WORDING.format('date'))
    .transform((v) => new Date(v).toISOString()),
);

export const ListPaymentsQuery = lazySchema(() =>
  z
    .object({
      page: queryInteger(1, 1_000_000).optional(),
      page_size: queryInteger(1, 100).optional(),
      status: z.enum(LIST_FILTER_STATUSES).optional(),
      pay_currency: z.string().max(20).optional(),
      order_id: z.string().max(100).optional(),
      created_after: isoDate().optional(),
      created_before: isoDate().optional(),
      amount_min: decimal({ maxScale: 2 }).optional(),
      amount_max: decimal({ maxScale: 2 }).optional(),
      ordering: z.enum(['created_at', '-created_at', 'amount', '-amount']).optional(),
      limit: queryInteger(1, 100).optional(),
      offset: queryInteger(0, 1_000_000).optional(),
      currency: z.string().max(20).optional(),
      blockchain: z.string().max(20).optional(),
      token: z.string().max(20).optional(),
    })
    .check(
      // Variant B (the offset form) when limit or offset is given, else variant A (the page form): DESIGN section 10.
      checkQueryForms(
        { name: 'offset form', by: ['limit', 'offset'], takes: ['currency', 'blockchain', 'token'] },
        {
          name: 'page form',
          takes: ['page', 'page_size', 'pay_currency', 'order_id', 'created_after', 'created_before', 'amount_min', 'amount_max', 'ordering'],
        },
      ),
    ),
);
export type ListPaymentsQuery = LazyOutput<typeof ListPaymentsQuery>;

export interface PageA {
  readonly count: number;
  readonly next: string | null;
  readonly previous: string | null;
  readonly results: Record<string, unknown>[];
}

export interface PageB {
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
  readonly results: Record<string, unknown>[];
}

/** Upper bound of rows read to count a filtered list. */
const COUNT_BOUND = 10_000;

const hasFilters = (q: PaymentFilter): boolean =>
  [q.status, q.currency, q.network, q.token, q.orderId, q.createdAfter, q.createdBefore, q.amountMin, q.amountMax].some((v) => v !== undefined);

type ListDeps = Pick<PaymentsDeps, 'payments' | 'settings'>;

async function window(q: Omit<PaymentQuery, 'take' | 'skip'>, offset: number, size: number, deps: ListDeps): Promise<{ rows: PaymentState[]; count: number }> {
  const [rows, count] = await Promise.all([
    deps.payments.list({ ...q, skip: offset, take: size }),
    hasFilters(q) ? deps.payments.countMatching(q, COUNT_BOUND) : deps.payments.count(q.tenantId),
  ]);
  return { rows, count };
}

export async function listPayments(tenantId: string, query: ListPaymentsQuery, path: string, links: PaymentLinks, deps: ListDeps): Promise<PageA | PageB> {
  const item = (p: PaymentState) => listItem(p, links);
  const amount = (v: string | undefined, field: string) => (v === undefined ? undefined : parseDecimal(v, { field, maxScale: 2 }));
  if (query.limit !== undefined || query.offset !== undefined) {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const network = query.blockchain === undefined ? undefined : findNetwork(query.blockchain)?.code;
    if (query.blockchain !== undefined && network === undefined) throw ValidationError.field('blockchain', WORDING.unknown('blockchain'));
    const { rows, count } = await window(
      {
        tenantId,
        ordering: '-created_at',
        status: query.status as PaymentStatus | undefined,
        currency: query.currency,
        network,
        token: query.token?.toUpperCase(),
      },
      offset,
      limit,
      deps,
    );
    return { total: count, limit, offset, results: rows.map(item) };
  }
  const page = query.page ?? 1;
  const size = query.page_size ?? 30;
  const { rows, count } = await window(
    {
      tenantId,
      ordering: query.ordering ?? '-created_at',
      status: query.status as PaymentStatus | undefined,
      currency: query.pay_currency,
      orderId: query.order_id,
      createdAfter: query.created_after,
      createdBefore: query.created_before,
      amountMin: amount(query.amount_min, 'amount_min'),
      amountMax: amount(query.amount_max, 'amount_max'),
    },
    (page - 1) * size,
    size,
    deps,
  );
  const link = (p: number): string => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && k !== 'page') params.set(k, String(v));
    params.set('page', String(p));
    return `${deps.settings.publicBaseUrl?.replace(/\/$/, '') ?? ''}${path}?${params.toString()}`;
  };
  return {
    count,
    next: page * size < count ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    results: rows.map(item),
  };
}
