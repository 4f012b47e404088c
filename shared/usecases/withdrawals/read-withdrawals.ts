import * as z from 'zod';
import { requestIdOf } from '../../domain/chain-tx.js';
import { findNetwork } from '../../domain/currencies.js';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { jsonNumber } from '../../domain/money.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { isCustodyWithdrawal, isProcessing, LIST_ONLY_STATUSES, transferReferenceOf, transition, WITHDRAWAL_STATUSES } from '../../domain/withdrawals.js';
import { dateBound, isoDate, queryInteger } from '../schema.js';
import type { IdempotencyGuard } from '../ports.js';
import type { WithdrawalRepository, WithdrawalsDeps } from './ports.js';
import { withdrawalListItem, withdrawalRecord } from './present.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** `GET /withdrawal/` query (spec 4.4). */
export const ListWithdrawalsQuery = lazySchema(() =>
  z.object({
    limit: queryInteger(1, 100).optional(),
    offset: queryInteger(0, 1_000_000).optional(),
    status: z.enum([...WITHDRAWAL_STATUSES, ...LIST_ONLY_STATUSES]).optional(),
    blockchain: z.string().trim().min(1).max(20).optional(),
    token: z.string().trim().min(1).max(20).optional(),
    start_date: isoDate().optional(),
    end_date: isoDate().optional(),
    custom_id: z.string().max(64).optional(),
    sort: z.enum(['created_asc', 'created_desc', 'amount_asc', 'amount_desc']).optional(),
  }),
);
export type ListWithdrawalsQuery = LazyOutput<typeof ListWithdrawalsQuery>;

export async function listWithdrawals(tenantId: string, q: ListWithdrawalsQuery, deps: Pick<WithdrawalsDeps, 'withdrawals'>): Promise<Record<string, unknown>> {
  const sort = q.sort ?? 'created_desc';
  const from = q.start_date === undefined ? undefined : dateBound(q.start_date, false);
  const to = q.end_date === undefined ? undefined : dateBound(q.end_date, true);
  if (from !== undefined && to !== undefined && from > to)
    throw ValidationError.field('end_date', WORDING.contradicts('start_date', 'end_date must not be before start_date.'));
  const all = await deps.withdrawals.list(tenantId, { by: sort.startsWith('amount') ? 'amount' : 'created', ascending: sort.endsWith('_asc'), from, to });
  const network = q.blockchain === undefined ? undefined : (findNetwork(q.blockchain)?.code ?? q.blockchain.toUpperCase());
  const token = q.token?.toUpperCase();
  const matching = all.filter(
    (w) =>
      !isCustodyWithdrawal(w) &&
      (q.status === undefined || w.status === q.status) &&
      (network === undefined || w.network === network) &&
      (token === undefined || w.token === token) &&
      (q.custom_id === undefined || w.customId === q.custom_id) &&
      (from === undefined || w.createdAt >= from) &&
      (to === undefined || w.createdAt <= to),
  );
  const offset = q.offset ?? 0;
  const limit = q.limit ?? 20;
  return { withdrawals: matching.slice(offset, offset + limit).map(withdrawalListItem), total: jsonNumber(String(matching.length)) };
}

/**
 * One of the tenant's withdrawals of one side: of the main account or a wallet (`custody` false), or of a custody
 * account (`custody` true). The other side's is not found (404), as an unknown one or anything but a uuid: a custody
 * withdrawal is read and cancelled at the custody endpoints (`/custody/withdrawals/{id}`), never under `/withdrawal/`.
 */
export async function findWithdrawalOf(
  tenantId: string,
  id: string,
  custody: boolean,
  deps: { readonly withdrawals: Pick<WithdrawalRepository, 'get'> },
): Promise<WithdrawalState> {
  const found = z.string().uuid().safeParse(id).success ? await deps.withdrawals.get(tenantId, id) : null;
  if (!found || isCustodyWithdrawal(found) !== custody)
    throw new NotFoundError(custody ? 'Custody withdrawal not found.' : 'Withdrawal not found.', { withdrawal_id: id });
  return found;
}

/** A withdrawal of the main account or a wallet (404 for a custody account's). */
export const requireWithdrawal = (tenantId: string, id: string, deps: Pick<WithdrawalsDeps, 'withdrawals'>): Promise<WithdrawalState> =>
  findWithdrawalOf(tenantId, id, false, deps);

/**
 * Cancels a pending withdrawal, of any side (409 `invalid_state` otherwise): the hold is released with the status,
 * and the Idempotency-Key record when guarded, in ONE transaction. A refund's withdrawal is cancelled with its refund
 * only (`POST /refunds/{id}/cancel/`): 409 `invalid_state` here.
 */
export function cancelPending(
  w: WithdrawalState,
  now: Date,
  deps: { readonly withdrawals: Pick<WithdrawalRepository, 'save'> },
  idempotency: IdempotencyGuard<WithdrawalState> | null,
): Promise<WithdrawalState> {
  if (w.refundId) {
    return Promise.reject(
      new ConflictError(`This withdrawal pays the refund ${w.refundId}; cancel the refund instead.`, {
        status: w.status,
        action: 'cancel',
        refund_id: w.refundId,
      }),
    );
  }
  return deps.withdrawals.save(w, transition(w, { kind: 'cancel' }, now), now, idempotency ? (stored) => [idempotency.completeItem(stored)] : undefined);
}

export const WithdrawalStatusBody = lazySchema(() => z.object({ withdrawal_id: z.string().uuid() }));

/** Cancels a pending withdrawal of the main account or a wallet (`cancelPending`). */
export async function cancelWithdrawal(
  tenantId: string,
  id: string,
  now: Date,
  deps: Pick<WithdrawalsDeps, 'withdrawals'>,
  idempotency: IdempotencyGuard<WithdrawalState> | null = null,
): Promise<WithdrawalState> {
  return cancelPending(await requireWithdrawal(tenantId, id, deps), now, deps, idempotency);
}

/**
 * A withdrawal as record 2.2, with what is known of its wait (`status_reason`): while `processing`, its chain
 * transaction; and how long it has been open.
 */
export async function describeWithdrawal(
  tenantId: string,
  id: string,
  deps: Pick<WithdrawalsDeps, 'withdrawals' | 'chainTxs' | 'clock'>,
): Promise<Record<string, unknown>> {
  const w = await requireWithdrawal(tenantId, id, deps);
  const chainTx = isProcessing(w) ? ((await deps.chainTxs.get(requestIdOf(w.network, transferReferenceOf(w)))) ?? null) : null;
  return withdrawalRecord(w, { now: deps.clock.now(), chainTx });
}
