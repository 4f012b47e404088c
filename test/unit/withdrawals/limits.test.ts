import { findCurrency } from '../../../shared/domain/currencies.js';
import type { CurrencyDefinition } from '../../../shared/domain/currencies.js';
import type { RateStats } from '../../../shared/domain/rates.js';
import type { TenantLimits } from '../../../shared/domain/tenant.js';
import { ReferenceRateProvider } from '../../../shared/rates/reference.js';
import { checkWithdrawalLimits } from '../../../shared/usecases/withdrawals/limits.js';
import { MemoryRatesStore } from '../../support/fakes/rates.js';

/**
 * checkWithdrawalLimits, the one check of the tenant's USD withdrawal limits (main-account, wallet and custody
 * withdrawals): the USD value, the maximum, the day's share, and the withdrawn currency valued even when payments and
 * withdrawals are not offered in it (custody's USDTSOL: every catalogue currency is valued).
 */
const now = new Date('2030-03-01T12:00:00Z');
const stat = (usd: string): RateStats => ({ usd, high24h: usd, low24h: usd, change24h: '0', change24hPercent: '0', volume24h: null, marketCap: null });
const limits = (own: Partial<TenantLimits>): TenantLimits => ({
  max_payment_amount: null,
  daily_payment_limit: null,
  max_withdrawal_amount: null,
  daily_withdrawal_limit: null,
  ...own,
});

async function deps(rates: Record<string, string>, disabled: readonly string[] = []) {
  const store = new MemoryRatesStore();
  await store.putCurrent({
    at: now.toISOString(),
    nextUpdate: now.toISOString(),
    source: 'test',
    rates: Object.fromEntries(Object.entries(rates).map(([code, usd]) => [code, stat(usd)])),
    fiat: {},
  });
  return { rates: { store, provider: new ReferenceRateProvider(), disabled: new Set(disabled) } };
}

const currency = (code: string): CurrencyDefinition => {
  const found = findCurrency(code);
  if (!found) throw new Error(code);
  return found;
};

describe('checkWithdrawalLimits', () => {
  it('prices nothing without limits, and values the amount in USD against the maximum and the daily limit', async () => {
    const d = await deps({ USDTTRC20: '0.998' });
    const check = (own: Partial<TenantLimits>, amount: string) =>
      checkWithdrawalLimits({ limits: limits(own), currency: currency('USDTTRC20'), amount, now }, d);
    expect(await check({}, '500')).toEqual({ amountUsd: null, dayTotal: null });
    expect(await check({ max_withdrawal_amount: '50' }, '50')).toEqual({ amountUsd: '49.90', dayTotal: null });
    await expect(check({ max_withdrawal_amount: '50' }, '51')).rejects.toMatchObject({
      code: 'invalid_request',
      details: { amount: [expect.stringContaining('50.90 USD')] },
    });
    expect(await check({ daily_withdrawal_limit: '100' }, '100')).toEqual({ amountUsd: '99.80', dayTotal: { amountUsd: '99.80', limitUsd: '100' } });
    await expect(check({ daily_withdrawal_limit: '100' }, '101')).rejects.toMatchObject({ name: 'DailyLimitError', code: 'invalid_request' });
  });

  it("values custody's USDTSOL like any held currency, and answers service_unavailable without one", async () => {
    const input = { limits: limits({ max_withdrawal_amount: '50' }), currency: currency('USDTSOL'), amount: '60', now };
    await expect(checkWithdrawalLimits(input, await deps({ USDTSOL: '1' }))).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await checkWithdrawalLimits({ ...input, amount: '40' }, await deps({ USDTSOL: '1' }))).toMatchObject({ amountUsd: '40.00' });
    await expect(checkWithdrawalLimits(input, await deps({ USDTTRC20: '1' }))).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(checkWithdrawalLimits(input, await deps({ USDTSOL: '1' }, ['USDTSOL']))).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
