import { creditEntry, MAIN } from '../../../shared/domain/ledger.js';
import { CreateWithdrawalBody, createWithdrawal } from '../../../shared/usecases/withdrawals/create-withdrawal.js';
import {
  availableCurrencies,
  EstimateWithdrawalBody,
  estimateWithdrawal,
  FeeEstimateBody,
  feeEstimate,
  MinWithdrawalBody,
  minWithdrawal,
  withdrawalLimits,
} from '../../../shared/usecases/withdrawals/estimate.js';
import { VirtualClock } from '../../support/clock.js';
import { serving } from '../../support/fakes/payments.js';
import { aTenant } from '../../support/fakes/tenants.js';
import { fakeWithdrawals } from '../../support/fakes/withdrawals.js';

/** Withdrawals are taken only in currencies this deployment sends: nothing is accepted, held and left pending. */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const tenant = aTenant();
const SENT = ['USDTERC20', 'USDCERC20', 'DAIERC20', 'USDTTRC20', 'ETH', 'WETH'];

async function deployment() {
  const fake = fakeWithdrawals({ clock: new VirtualClock(T0), served: serving(['ETH', 'TRX']) });
  for (const currency of ['USDTERC20', 'USDTBSC'] as const) {
    await fake.ledger.post({
      tenantId: tenant.id,
      entryId: `funding-${currency}`,
      entry: creditEntry({ account: MAIN, type: 'adjustment', currency, amount: '100', reason: 'test funding' }),
      now: T0,
    });
  }
  return fake;
}

describe('a currency this deployment does not send', () => {
  it('is refused at creation as an unknown one is (invalid_currency, only sent currencies listed), nothing held', async () => {
    const fake = await deployment();
    const create = (body: Record<string, unknown>) => createWithdrawal({ body: CreateWithdrawalBody().parse(body), tenant, now: T0 }, fake);
    await expect(create({ amount: '20', currency: 'USDTBSC', address: DEST })).rejects.toMatchObject({
      code: 'invalid_currency',
      details: { field: 'currency', currency: 'USDTBSC', supported_currencies: SENT },
    });
    await expect(create({ price_amount: '20', price_currency: 'USD', blockchain: 'BSC', token: 'USDT', address: DEST })).rejects.toMatchObject({
      code: 'invalid_currency',
      details: { field: 'token', supported_currencies: SENT },
    });
    await expect(create({ amount: '20', currency: 'DOGE', address: DEST })).rejects.toMatchObject({ code: 'invalid_currency' });
    expect(await fake.withdrawals.list(tenant.id, { by: 'created', ascending: true })).toEqual([]);
    expect((await fake.ledger.balance(tenant.id, MAIN, 'USDTBSC')).amount).toBe('100');
    expect((await create({ amount: '20', currency: 'USDTERC20', address: DEST })).status).toBe('pending');
  });

  it('is refused by estimate, fee-estimate and min-amount (both variants), and left out of limits and available currencies', async () => {
    const fake = await deployment();
    const refused = { code: 'invalid_currency', details: { currency: 'USDTBSC', supported_currencies: SENT } };
    await expect(estimateWithdrawal(EstimateWithdrawalBody().parse({ amount: '20', currency: 'USDTBSC' }), tenant, fake)).rejects.toMatchObject(refused);
    await expect(feeEstimate(FeeEstimateBody().parse({ amount: '20', currency: 'USDTBSC' }), tenant, fake)).rejects.toMatchObject(refused);
    expect(() => minWithdrawal(MinWithdrawalBody().parse({ currency: 'USDTBSC' }), fake)).toThrow(
      expect.objectContaining({ code: 'invalid_currency', details: expect.objectContaining(refused.details) }),
    );
    expect(() => minWithdrawal(MinWithdrawalBody().parse({ blockchain: 'BSC', token: 'USDT' }), fake)).toThrow(
      expect.objectContaining({ code: 'unsupported_token', details: expect.objectContaining({ blockchain: 'BSC', token: 'USDT' }) }),
    );
    const limits = withdrawalLimits(tenant, fake).currencies as { currency: string }[];
    expect(limits.map((c) => c.currency)).toEqual(SENT);
    expect(await availableCurrencies(tenant.id, fake)).toEqual({
      currencies: [expect.objectContaining({ currency: 'USDTERC20' })],
    });
  });
});
