import type { Tenant } from '../../domain/tenant.js';
import type { PaymentRepository } from './ports.js';

/**
 * The operator's upgrade of stored payments (`npm run gateway -- migrate payments`): every tenant's payments stored
 * in an earlier form rewritten in the current one (shared/store/payments.ts `upgradeStored`). Safe to run while
 * the gateway serves, and again: a run after a complete one rewrites nothing.
 */
export interface UpgradeDeps {
  readonly tenants: { list(): Promise<Tenant[]> };
  readonly payments: Pick<PaymentRepository, 'upgradeStored'>;
}

export async function upgradeStoredPayments(tenantId: string | null, deps: UpgradeDeps): Promise<{ tenant_id: string; upgraded: number }[]> {
  const ids = tenantId === null ? (await deps.tenants.list()).map((t) => t.id) : [tenantId];
  const out: { tenant_id: string; upgraded: number }[] = [];
  for (const id of ids) out.push({ tenant_id: id, upgraded: await deps.payments.upgradeStored(id) });
  return out;
}
