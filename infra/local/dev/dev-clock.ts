import { JsonRpcProvider } from 'ethers';
import { config } from '../../../shared/config/config.js';
import { pullSubscriptionsRuntime } from '../../../shared/runtime/collector.js';
import { advanceDue } from '../../../shared/usecases/subscriptions/advance.js';

const DAY_MS = 86_400_000;

/**
 * `dev clock advance --tenant T --days N` (issue 30): moves a tenant's subscription clock N days ahead (outside
 * production only: the stage's clocks refuse it there), then runs the subscription advancer once, so the periods that
 * fall due open (and lapse) at once rather than at the schedule's next minute.
 *
 * On the local stack (stage `local`) it also moves each local EVM chain (`EVM_RPC_URLS`: anvil) at least as far, with
 * `evm_increaseTime` and `evm_mine`: the collector contract reads the chain's clock, not the tenant's, and would answer
 * `period_not_open` to a pull subscription's charge of a period the tenant's clock opened (docs/subscriptions-pull.md).
 * A chain is only ever moved forward, to the tenant's time if it is behind it; one shared by tenants stays ahead of
 * the others' clocks, which the contract allows (a period is never charged before the gateway opens it).
 */
export async function devClockAdvance(
  tenantId: string,
  days: number,
): Promise<{
  tenant_id: string;
  offset_days: number;
  tenant_now: string;
  /** Seconds each local EVM chain's clock moved forward (local stage only). */
  chains: Record<string, number>;
  due: number;
  steps: number;
  failed: number;
}> {
  const cfg = config();
  if (cfg.isProduction) throw new Error('The test clock is not honoured in production.');
  if (!Number.isFinite(days) || days < 0) throw new Error('--days must be a non-negative number.');
  const deps = pullSubscriptionsRuntime(cfg);
  if (!(await deps.tenants.get(tenantId))) throw new Error(`No tenant ${tenantId}.`);
  const offset = (await deps.clocks.offsetMs(tenantId)) + Math.round(days * DAY_MS);
  await deps.clocks.set(tenantId, offset);
  const now = new Date();
  const chains = cfg.STAGE === 'local' ? await moveLocalChains(cfg.EVM_RPC_URLS, Math.ceil((now.getTime() + offset) / 1000)) : {};
  const run = await advanceDue(now, deps, cfg.PUBLIC_BASE_URL ?? '');
  return { tenant_id: tenantId, offset_days: offset / DAY_MS, tenant_now: new Date(now.getTime() + offset).toISOString(), chains, ...run };
}

/** Moves each chain's clock forward to `atLeast` (unix seconds) where it is behind; returns the seconds each moved. */
export async function moveLocalChains(rpcUrls: Readonly<Record<string, string>>, atLeast: number): Promise<Record<string, number>> {
  const moved: Record<string, number> = {};
  for (const [network, url] of Object.entries(rpcUrls)) {
    const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, batchMaxCount: 1 });
    try {
      const latest = await provider.getBlock('latest');
      const behind = atLeast - (latest?.timestamp ?? atLeast);
      if (behind > 0) {
        await provider.send('evm_increaseTime', [behind]);
        await provider.send('evm_mine', []);
      }
      moved[network] = Math.max(0, behind);
    } finally {
      provider.destroy();
    }
  }
  return moved;
}
