import { config } from '../../../shared/config/config.js';
import { subscriptionsRuntime } from '../../../shared/runtime/subscriptions.js';
import { advanceDue } from '../../../shared/usecases/subscriptions/advance.js';

const DAY_MS = 86_400_000;

/**
 * `dev clock advance --tenant T --days N` (issue 30): moves a tenant's subscription clock N days ahead (outside
 * production only: the stage's clocks refuse it there), then runs the subscription advancer once, so the periods that
 * fall due open (and lapse) at once rather than at the schedule's next minute.
 */
export async function devClockAdvance(
  tenantId: string,
  days: number,
): Promise<{ tenant_id: string; offset_days: number; tenant_now: string; due: number; steps: number; failed: number }> {
  const cfg = config();
  if (cfg.isProduction) throw new Error('The test clock is not honoured in production.');
  if (!Number.isFinite(days) || days < 0) throw new Error('--days must be a non-negative number.');
  const deps = subscriptionsRuntime(cfg);
  if (!(await deps.tenants.get(tenantId))) throw new Error(`No tenant ${tenantId}.`);
  const offset = (await deps.clocks.offsetMs(tenantId)) + Math.round(days * DAY_MS);
  await deps.clocks.set(tenantId, offset);
  const now = new Date();
  const run = await advanceDue(now, deps, cfg.PUBLIC_BASE_URL ?? '');
  return { tenant_id: tenantId, offset_days: offset / DAY_MS, tenant_now: new Date(now.getTime() + offset).toISOString(), ...run };
}
