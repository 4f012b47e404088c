import { tenantTotalsOf } from '../domain/transactions.js';
import type { TenantStatistics } from '../usecases/user/ports.js';
import { dynamoTransactionHistory } from './transactions.js';

/**
 * A tenant's totals from the transaction history's all-time counters (shared/store/transactions.ts), kept in the
 * same transaction as every change of a movement: payments and withdrawals created, and the USD volume of the
 * completed payments, so they agree with `GET /transactions/stats/` and the list.
 */
export const dynamoTenantStatistics: TenantStatistics = {
  read: async (tenantId) => tenantTotalsOf(await dynamoTransactionHistory.allTimeSums(tenantId)),
};
