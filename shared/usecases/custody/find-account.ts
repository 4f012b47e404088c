import type { CustodyAccountState } from '../../domain/custody.js';
import { AccountNotFoundError } from '../../domain/custody.js';
import type { CustodyPorts } from './ports.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The tenant's account named by `accountId`; anything else (unknown, another tenant's, not an id) is 404 `account_not_found`. */
export async function findAccount(tenantId: string, accountId: string, deps: Pick<CustodyPorts, 'accounts'>): Promise<CustodyAccountState> {
  const account = UUID.test(accountId) ? await deps.accounts.get(tenantId, accountId) : null;
  if (!account) throw new AccountNotFoundError(accountId);
  return account;
}
