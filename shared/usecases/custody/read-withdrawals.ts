import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import type { IdempotencyGuard } from '../ports.js';
import { cancelPending, findWithdrawalOf } from '../withdrawals/read-withdrawals.js';
import type { CustodyWithdrawalPorts } from './ports.js';

/**
 * A custody account's withdrawal, read and cancelled in the custody group (`/custody/withdrawals/{withdrawalId}`).
 * It is not a withdrawal of the main account: `GET /withdrawal/{id}/`, the withdrawal list and its cancel do not know
 * it (404), as these do not know a withdrawal of the main account or a wallet.
 */

/** A withdrawal named in a custody path: anything but a uuid names none (404). */
export const CustodyWithdrawalParams = lazySchema(() => z.object({ withdrawalId: z.string().max(100) }));

export const requireCustodyWithdrawal = (tenantId: string, id: string, deps: Pick<CustodyWithdrawalPorts, 'withdrawals'>): Promise<WithdrawalState> =>
  findWithdrawalOf(tenantId, id, true, deps);

/** Cancels a pending custody withdrawal, held for review or not: the hold returns to the account (`cancelPending`). */
export async function cancelCustodyWithdrawal(
  tenantId: string,
  id: string,
  deps: Pick<CustodyWithdrawalPorts, 'withdrawals' | 'clock'>,
  idempotency: IdempotencyGuard<WithdrawalState> | null = null,
): Promise<WithdrawalState> {
  return cancelPending(await requireCustodyWithdrawal(tenantId, id, deps), deps.clock.now(), deps, idempotency);
}
