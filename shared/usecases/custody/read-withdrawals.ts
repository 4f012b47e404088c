import * as z from 'zod';
import { NotFoundError } from '../../domain/errors.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { isCustodyWithdrawal, transition } from '../../domain/withdrawals.js';
import type { IdempotencyGuard } from '../ports.js';
import type { CustodyWithdrawalPorts } from './ports.js';

/**
 * A custody account's withdrawal, read and cancelled in the custody group (`/custody/withdrawals/{withdrawalId}`).
 * It is not a withdrawal of the main account: `GET /withdrawal/{id}/`, the withdrawal list and its cancel do not know
 * it (404), as these do not know a withdrawal of the main account or a wallet.
 */

/** A withdrawal named in a custody path: anything but a uuid names none (404). */
export const CustodyWithdrawalParams = z.object({ withdrawalId: z.string().max(100) });

const UUID = z.string().uuid();

export async function requireCustodyWithdrawal(tenantId: string, id: string, deps: Pick<CustodyWithdrawalPorts, 'withdrawals'>): Promise<WithdrawalState> {
  const found = UUID.safeParse(id).success ? await deps.withdrawals.get(tenantId, id) : null;
  if (!found || !isCustodyWithdrawal(found)) throw new NotFoundError('Custody withdrawal not found.', { withdrawal_id: id });
  return found;
}

/**
 * Cancels a pending custody withdrawal, held for review or not (409 `invalid_state` otherwise): the hold returns to
 * the account with the status, and the Idempotency-Key record when guarded, in ONE transaction.
 */
export async function cancelCustodyWithdrawal(
  tenantId: string,
  id: string,
  deps: Pick<CustodyWithdrawalPorts, 'withdrawals' | 'clock'>,
  idempotency: IdempotencyGuard<WithdrawalState> | null = null,
): Promise<WithdrawalState> {
  const w = await requireCustodyWithdrawal(tenantId, id, deps);
  const now = deps.clock.now();
  return deps.withdrawals.save(w, transition(w, { kind: 'cancel' }, now), now, idempotency ? (stored) => [idempotency.completeItem(stored)] : undefined);
}
