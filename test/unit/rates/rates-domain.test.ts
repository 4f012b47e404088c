import { convert, exchangeRate, MissingRateError, mergeCandle, stats24h, usdValue } from '../../../shared/domain/rates.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { REFERENCE_PRICES } from '../../../shared/rates/reference-prices.js';
import { referencePrice, ReferenceRateProvider } from '../../../shared/rates/reference.js';
import { cmp, div, mul, sub } from '../../../shared/domain/money.js';

const rates = { EUR: '1.08', GBP: '1.25', ETH: '3000', USDTERC20: '1', BTC: '60000' };

describe('rate math', () => {
  it('converts through USD with explicit rounding', () => {
    expect(convert('100', 'USD', 'ETH', rates, 'up')).toBe('0.03333334');
    expect(convert('100', 'USD', 'ETH', rates, 'down')).toBe('0.03333333');
    expect(convert('100', 'EUR', 'USDTERC20', rates, 'up')).toBe('108');
    // EUR -> GBP goes through USD: 100 * 1.08 / 1.25
    expect(convert('100', 'EUR', 'GBP', rates, 'half-even')).toBe('86.4');
    expect(exchangeRate('USD', 'ETH', rates)).toBe('0.000333333333333333');
    expect(() => convert('1', 'USD', 'MATIC', rates, 'up')).toThrow(MissingRateError);
    expect(usdValue(CURRENCIES.ETH, '0.001', rates, 'up')).toBe('3.00');
  });

  it('computes 24 h statistics from candles and the current price', () => {
    let c1 = mergeCandle(undefined, '100');
    c1 = mergeCandle(c1, '120');
    c1 = mergeCandle(c1, '90');
    const c2 = mergeCandle(undefined, '95');
    const stats = stats24h('X', '110', [
      { hour: '2030-01-01T11', candles: { X: c2 } },
      { hour: '2030-01-01T10', candles: { X: c1 } },
    ]);
    expect(stats).toMatchObject({ usd: '110', high24h: '120', low24h: '90', change24h: '10', change24hPercent: '10' });
    expect(stats24h('X', '5', []).change24h).toBe('0');
  });
});

describe('reference provider', () => {
  it('is deterministic and stays within its band', async () => {
    const provider = new ReferenceRateProvider();
    const at = new Date('2030-05-05T12:34:56Z');
    const a = await provider.fetchSnapshot(['ETH', 'USDT'], { now: at });
    const b = await provider.fetchSnapshot(['ETH', 'USDT'], { now: new Date(at) });
    expect(a.assets).toEqual(b.assets);
    expect(a.fiat.EUR).toBeDefined();
    for (let minute = 0; minute < 24 * 60; minute += 7) {
      const price = referencePrice('ETH', REFERENCE_PRICES.ETH, new Date(at.getTime() + minute * 60_000));
      const deviation = div(mul(sub(price, REFERENCE_PRICES.ETH.usd), '10000'), REFERENCE_PRICES.ETH.usd, 6, 'half-even');
      expect(cmp(deviation.replace('-', ''), String(REFERENCE_PRICES.ETH.bandBps))).toBeLessThanOrEqual(0);
    }
  });

  it('moves over a day, so high and low differ', () => {
    const start = Date.parse('2030-05-05T00:00:00Z');
    const prices = new Set(Array.from({ length: 48 }, (_, i) => referencePrice('BTC', REFERENCE_PRICES.BTC, new Date(start + i * 30 * 60_000))));
    expect(prices.size).toBeGreaterThan(10);
  });
});
