import fc from 'fast-check';
import type { CurrencyDefinition } from '../../../shared/domain/currencies.js';
import { CURRENCIES, FIAT_CODES, NETWORKS, servedCurrencies } from '../../../shared/domain/currencies.js';
import { lt } from '../../../shared/domain/money.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import type { StoredRates } from '../../../shared/domain/rates.js';
import { CreatePaymentBody, createPayment } from '../../../shared/usecases/payments/create-payment.js';
import { minAmount } from '../../../shared/usecases/payments/estimate.js';
import { MinWithdrawalBody, minWithdrawal } from '../../../shared/usecases/withdrawals/estimate.js';
import { VirtualClock } from '../../support/clock.js';
import type { FakePayments } from '../../support/fakes/payments.js';
import { CHAIN_NETWORKS, fakePayments, fixedRates, serving } from '../../support/fakes/payments.js';
import { aTenant } from '../../support/fakes/tenants.js';
import { fakeWithdrawals } from '../../support/fakes/withdrawals.js';

/** Minimums in the merchant's terms: the payment minimum in its price currency and USD; variant B of the withdrawal minimum. */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const tenant = aTenant();

/** Payment fakes serving every chain network, at the fixed rates with some USD rates replaced. */
function at(usd: Record<string, string>, fiat: Record<string, string> = {}): FakePayments {
  const clock = new VirtualClock(T0);
  const fake = fakePayments({ clock, served: serving(CHAIN_NETWORKS) });
  const base = fixedRates(T0);
  const snapshot: StoredRates = {
    ...base,
    rates: { ...base.rates, ...Object.fromEntries(Object.entries(usd).map(([code, v]) => [code, { ...base.rates[code]!, usd: v }])) },
    fiat: { ...base.fiat, ...fiat },
  };
  return { ...fake, rates: { ...fake.rates, store: { ...fake.rates.store, current: async () => snapshot } } };
}

const create = (fake: FakePayments, body: Record<string, unknown>) => createPayment({ body: CreatePaymentBody().parse(body), tenant, now: T0 }, fake);

describe('a payment below its minimum', () => {
  it('keeps the rule, and gives the minimum in the price currency and in USD, rounded up to the cent', async () => {
    // 10 USD of USDT at 1.000755 USD is 9.992456 USDT, below the minimum of 10.
    const fake = at({ USDTERC20: '1.000755' });
    await expect(create(fake, { amount: '10', currency: 'USDTERC20' })).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      details: {
        amount: [expect.stringContaining('9.992456 USDTERC20, below the minimum of 10 USDTERC20 (10.01 USD')],
        minimum: '10',
        currency: 'USDTERC20',
        minimum_price: '10.01',
        price_currency: 'USD',
        min_amount_usd: '10.01',
      },
    });
    // Priced at the minimum it gives, the payment is taken.
    expect((await create(fake, { amount: '10.01', currency: 'USDTERC20' })).status).toBe('waiting');
  });

  it('in the payment price currency: EUR for an ETH payment', async () => {
    const fake = at({}, { EUR: '1.08' });
    // 0.001 ETH at 3000 USD is 3 USD, 2.777… EUR: 2.78 EUR.
    await expect(create(fake, { price_amount: '2', price_currency: 'EUR', pay_currency: 'ETH' })).rejects.toMatchObject({
      details: { price_amount: [expect.any(String)], minimum: '0.001', currency: 'ETH', minimum_price: '2.78', price_currency: 'EUR', min_amount_usd: '3.00' },
    });
    expect((await create(fake, { price_amount: '2.78', price_currency: 'EUR', pay_currency: 'ETH' })).status).toBe('waiting');
    await expect(create(fake, { price_amount: '2.77', price_currency: 'EUR', pay_currency: 'ETH' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('GET /payments/min-amount/ answers min_amount_usd and min_amount_price in the asked fiat (default USD)', async () => {
    const fake = at({ USDTERC20: '1.000755' }, { EUR: '1.1' });
    expect(await minAmount({ currency: 'USDTERC20' }, T0, fake)).toMatchObject({
      min_amount: expect.anything(),
      price_currency: 'USD',
    });
    const usd = await minAmount({ currency: 'USDTERC20' }, T0, fake);
    expect([String(usd.min_amount_usd), String(usd.min_amount_price)]).toEqual(['10.01', '10.01']);
    const eur = await minAmount({ currency: 'USDTERC20', price_currency: 'EUR' }, T0, fake);
    // 10.00755 USD / 1.1 = 9.0977… EUR: 9.10 EUR, written as the JSON number 9.1.
    expect([String(eur.min_amount_usd), String(eur.min_amount_price), eur.price_currency]).toEqual(['10.01', '9.1', 'EUR']);
    await expect(minAmount({ currency: 'USDTERC20', price_currency: 'JPY' }, T0, fake)).rejects.toMatchObject({
      code: 'invalid_currency',
      details: { field: 'price_currency' },
    });
  });

  it('property: for any rates, a payment priced at the minimum it is told is never refused as below the minimum', async () => {
    const fake = fakePayments({ served: serving(CHAIN_NETWORKS) });
    const payable = servedCurrencies('payments', fake.served);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...payable),
        fc.constantFrom(...FIAT_CODES),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 50, max: 200 }),
        async (currency: CurrencyDefinition, fiat, micros, fiatCents) => {
          const usd = (micros / 1_000_000).toFixed(6);
          const deps = at({ [currency.code]: usd }, { EUR: (fiatCents / 100).toFixed(2), GBP: (fiatCents / 100).toFixed(2) });
          const min = await minAmount({ currency: currency.code, price_currency: fiat }, T0, deps);
          const price = String(min.min_amount_price);
          if (Number(price) > 1e9) return; // beyond any tenant's maximum: not what is checked here
          const made = await create(deps, { price_amount: price, price_currency: fiat, pay_currency: currency.code }).catch((e: unknown) => e);
          const refusedAsBelow = made instanceof Error && /below the minimum/.test(made.message);
          expect(refusedAsBelow).toBe(false);
          if (!(made instanceof Error)) expect(lt((made as PaymentState).priceCrypto, currency.minAmount)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('POST /withdrawal/min-amount/ variant B', () => {
  it('answers every blockchain/token pair of a served catalogue currency, under the network code and each alias', () => {
    const deps = fakeWithdrawals({ served: serving(CHAIN_NETWORKS) });
    const sent = servedCurrencies('withdrawals', deps.served);
    expect(sent.length).toBeGreaterThan(5);
    for (const currency of sent) {
      for (const blockchain of [currency.network, ...NETWORKS[currency.network].aliases]) {
        for (const name of [blockchain, blockchain.toLowerCase()]) {
          const answer = minWithdrawal(MinWithdrawalBody().parse({ blockchain: name, token: currency.token.toLowerCase() }), deps);
          expect([currency.code, String(answer.min_amount), answer.token]).toEqual([currency.code, currency.minWithdrawal, currency.token]);
        }
      }
    }
  });

  it('defaults the token to USDT where the network has it, else its native coin: ARB, POLYGON, MATIC, TRON, BSC, SOL', () => {
    const deps = fakeWithdrawals({ served: serving(CHAIN_NETWORKS) });
    const min = (blockchain: string) => minWithdrawal(MinWithdrawalBody().parse({ blockchain }), deps);
    expect(min('ARB')).toMatchObject({ blockchain: 'ARB', token: 'USDT' });
    expect(String(min('ARB').min_amount)).toBe(CURRENCIES.USDTARB.minWithdrawal);
    expect(String(min('POLYGON').min_amount)).toBe(CURRENCIES.USDTPOLYGON.minWithdrawal);
    expect(String(min('MATIC').min_amount)).toBe(CURRENCIES.USDTPOLYGON.minWithdrawal);
    expect(String(min('tron').min_amount)).toBe(CURRENCIES.USDTTRC20.minWithdrawal);
    expect(String(min('BEP20').min_amount)).toBe(CURRENCIES.USDTBSC.minWithdrawal);
    expect(String(minWithdrawal(MinWithdrawalBody().parse({ blockchain: 'MATIC', token: 'MATIC' }), deps).min_amount)).toBe(CURRENCIES.MATIC.minWithdrawal);
    // SOL: custody's USDT, sent from custody accounts only, at the custody minimum.
    expect(min('SOL')).toMatchObject({ blockchain: 'SOL', token: 'USDT' });
    expect(String(min('solana').min_amount)).toBe(CURRENCIES.USDTSOL.minWithdrawal);
    // Where USDT is not sent, the native coin.
    const noPolygonUsdt = fakeWithdrawals({ served: serving(CHAIN_NETWORKS, CHAIN_NETWORKS, ['USDTPOLYGON']) });
    expect(minWithdrawal(MinWithdrawalBody().parse({ blockchain: 'POLYGON' }), noPolygonUsdt)).toMatchObject({ token: 'MATIC', blockchain: 'POLYGON' });
    // Nothing sent there (named by the interface or reached without a catalogue currency): unsupported_blockchain, never a
    // token the client did not send; with a token, unsupported_token; named by nobody: unsupported_blockchain.
    for (const chain of ['BTC', 'BASE', 'LTC']) {
      expect(() => min(chain)).toThrow(expect.objectContaining({ code: 'unsupported_blockchain', message: expect.not.stringMatching(/token/i) }));
    }
    expect(() => minWithdrawal(MinWithdrawalBody().parse({ blockchain: 'BTC', token: 'BTC' }), deps)).toThrow(
      expect.objectContaining({ code: 'unsupported_token' }),
    );
    expect(() => min('DOT')).toThrow(expect.objectContaining({ code: 'unsupported_blockchain' }));
  });
});
