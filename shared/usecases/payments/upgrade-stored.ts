import type { Tenant } from '../../domain/tenant.js';
import type { PaymentRepository } from './ports.js';

/**
 * The operator's upgrade of stored payments (`npm run gateway -- migrate payments`): every tenant's payments stored
 * in an earlier form rewritten in the current one (shared/store/payments.ts `upgradeStored`), and its day totals
 * of payments kept in their earlier form carried onto the usage items that keep them now (shared/store/usage-upgrade.ts),
 * so the daily limit still counts what was created that day before the upgrade. Safe to run while the gateway
 * serves, and again: a run after a complete one rewrites nothing.
 */
export interface UpgradeDeps {
  readonly tenants: { list(): Promise<Tenant[]> };
  readonly payments: Pick<PaymentRepository, 'upgradeStored'>;
  /** Carries a tenant's day totals in their earlier form; how many. */
  readonly carryDayTotals: (tenantId: string) => Promise<number>;
}

export interface TenantUpgrade {
  readonly tenant_id: string;
  /** Payments rewritten. */
  readonly upgraded: number;
  /** Day totals carried onto usage items. */
  readonly day_totals: number;
}

export async function upgradeStoredPayments(tenantId: string | null, deps: UpgradeDeps): Promise<TenantUpgrade[]> {
  const ids = tenantId === null ? (await deps.tenants.list()).map((t) => t.id) : [tenantId];
  const out: TenantUpgrade[] = [];
  for (const id of ids) out.push({ tenant_id: id, upgraded: await deps.payments.upgradeStored(id), day_totals: await deps.carryDayTotals(id) });
  return out;
}
