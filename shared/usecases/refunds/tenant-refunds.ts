import * as z from 'zod';
import { ValidationError } from '../../domain/errors.js';
import type { RefundState } from '../../domain/refunds.js';
import { REFUND_STATUSES } from '../../domain/refunds.js';
import { parseInput } from '../ledger/input.js';
import type { RefundsDeps, TenantRefundsQuery } from './ports.js';
import { listRefunds } from './refunds.js';

/**
 * A tenant's refunds for the operator (`gateway refund list`): newest first, of one status or one payment, a page at
 * a time. The tenant's list reads its per-tenant index; one payment's, its per-payment index (404 for an unknown
 * payment). The cursor names the refund the previous page ended with.
 */

export const TenantRefundsInput = z.object({
  status: z.enum(REFUND_STATUSES).optional(),
  payment_id: z.string().uuid('Not a payment id.').optional(),
  limit: z.number().int().min(1).max(1000).default(50),
  cursor: z.string().min(1).optional(),
});
/** The request as given (the CLI's options): checked by `TenantRefundsInput` (400 invalid_request). */
export interface TenantRefundsRequest {
  readonly status?: string | undefined;
  readonly payment_id?: string | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

export interface TenantRefundsPage {
  readonly refunds: readonly RefundState[];
  /** Where the next page starts; null on the last page. */
  readonly cursor: string | null;
}

type Cursor = NonNullable<TenantRefundsQuery['cursor']>;

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const encodeCursor = (r: RefundState): string => Buffer.from(JSON.stringify([r.createdAt, r.id]), 'utf8').toString('base64url');

function decodeCursor(cursor: string): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (Array.isArray(parsed) && parsed.length === 2) {
    const [createdAt, id] = parsed as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string' && INSTANT.test(createdAt) && UUID.test(id)) return { createdAt, id };
  }
  throw ValidationError.field('cursor', 'Not a cursor of this list.');
}

/** Listed after the cursor's refund (newest first: created before it, or at the same instant with a lower id). */
const after = (r: RefundState, c: Cursor): boolean => r.createdAt < c.createdAt || (r.createdAt === c.createdAt && r.id < c.id);

export async function listTenantRefunds(
  tenantId: string,
  raw: TenantRefundsRequest,
  deps: Pick<RefundsDeps, 'payments' | 'refunds'>,
): Promise<TenantRefundsPage> {
  const input = parseInput(TenantRefundsInput, raw);
  const cursor = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  let page: { readonly refunds: readonly RefundState[]; readonly more: boolean };
  if (input.payment_id === undefined) {
    page = await deps.refunds.listByTenant(tenantId, { limit: input.limit, ...(input.status ? { status: input.status } : {}), ...(cursor ? { cursor } : {}) });
  } else {
    // A payment has a handful of refunds: read them all (oldest first), then filter and page here.
    const listed = (await listRefunds(tenantId, input.payment_id, deps))
      .filter((r) => input.status === undefined || r.status === input.status)
      .filter((r) => cursor === undefined || after(r, cursor))
      .reverse();
    page = { refunds: listed.slice(0, input.limit), more: listed.length > input.limit };
  }
  const last = page.refunds.at(-1);
  return { refunds: page.refunds, cursor: page.more && last ? encodeCursor(last) : null };
}
