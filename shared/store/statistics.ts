import type { TenantStatistics } from '../usecases/user/ports.js';
import { readCounter } from './aggregate.js';
import { keys } from './keys.js';
import { integer } from './values.js';

/**
 * A tenant's totals from the counters its payments and withdrawals keep in their own transactions (shared/store/
 * aggregate.ts `counterItem`): payments created and the USD volume of those credited, withdrawals created.
 */
export const dynamoTenantStatistics: TenantStatistics = {
  async read(tenantId) {
    const [payments, withdrawals] = await Promise.all([
      readCounter(keys.paymentCounterPrefix(tenantId), ['count', 'volume_usd']),
      readCounter(keys.withdrawalCounterPrefix(tenantId), ['count']),
    ]);
    return { payments: integer(payments.count), withdrawals: integer(withdrawals.count), volumeUsd: payments.volume_usd };
  },
};
