import {
  activeCurrencies,
  contractAddress,
  CURRENCIES,
  CURRENCY_CODES,
  findCurrency,
  findCurrencyByToken,
  findNetwork,
  NETWORKS,
} from '../../../shared/domain/currencies.js';
import { gt, isPositive } from '../../../shared/domain/money.js';

describe('currency catalogue', () => {
  it('has every code of spec section 1 with the expected decimals', () => {
    expect([...CURRENCY_CODES].sort()).toEqual(
      ['USDTERC20', 'USDCERC20', 'DAIERC20', 'USDTTRC20', 'USDTPOLYGON', 'USDTBSC', 'USDTARB', 'ETH', 'WETH', 'BTC', 'MATIC', 'USDTSOL'].sort(),
    );
    const decimals = Object.fromEntries(CURRENCY_CODES.map((c) => [c, CURRENCIES[c].decimals]));
    expect(decimals).toEqual({
      USDTERC20: 6,
      USDCERC20: 6,
      DAIERC20: 18,
      USDTTRC20: 6,
      USDTPOLYGON: 6,
      USDTBSC: 18,
      USDTARB: 6,
      ETH: 18,
      WETH: 18,
      BTC: 8,
      MATIC: 18,
      USDTSOL: 6,
    });
    expect(CURRENCIES.USDTERC20.displayPrecision).toBe(6);
    expect(CURRENCIES.DAIERC20.displayPrecision).toBe(8);
    expect(CURRENCIES.BTC.displayPrecision).toBe(8);
  });

  it('is consistent: families from networks, bounds ordered, natives without contracts', () => {
    for (const c of Object.values(CURRENCIES)) {
      expect(c.family).toBe(NETWORKS[c.network].family);
      expect(isPositive(c.minAmount)).toBe(true);
      expect(gt(c.maxAmount, c.minAmount)).toBe(true);
      expect(c.native).toBe(c.contracts.mainnet === null);
      expect(c.confirmations).toBeGreaterThan(0);
    }
    expect(CURRENCIES.USDTTRC20.family).toBe('tron');
    expect(CURRENCIES.BTC.family).toBe('btc');
    expect(CURRENCIES.USDTARB.family).toBe('evm');
    expect(CURRENCIES.USDTSOL.family).toBe('sol');
    // Custody holds it; payments and withdrawals wait for their Solana wiring.
    expect(CURRENCIES.USDTSOL.enabled).toEqual({ payments: false, withdrawals: false });
  });

  it('looks codes up case-sensitively and networks by alias', () => {
    expect(findCurrency('usdterc20')).toBeUndefined();
    expect(findCurrency('ETH')?.native).toBe(true);
    expect(findNetwork('tron')?.code).toBe('TRX');
    expect(findNetwork('MATIC')?.code).toBe('POLYGON');
    expect(findCurrencyByToken('TRON', 'usdt')?.code).toBe('USDTTRC20');
    expect(findCurrencyByToken('ETH', 'ETH')?.code).toBe('ETH');
    expect(findCurrencyByToken('solana', 'USDT')?.code).toBe('USDTSOL');
    expect(findCurrencyByToken('SOL', 'USDC')).toBeUndefined();
  });

  it('resolves contracts per environment with overrides', () => {
    expect(contractAddress(CURRENCIES.USDTERC20, 'mainnet')).toBe('0xdAC17F958D2ee523a2206206994597C13D831ec7');
    expect(contractAddress(CURRENCIES.USDTERC20, 'local')).toBeNull();
    expect(contractAddress(CURRENCIES.USDTERC20, 'local', { USDTERC20: '0xabc' })).toBe('0xabc');
    expect(contractAddress(CURRENCIES.ETH, 'local', { ETH: '0xabc' })).toBeNull();
  });

  it('leaves out disabled currencies', () => {
    expect(activeCurrencies(new Set(['BTC'])).map((c) => c.code)).not.toContain('BTC');
    expect(activeCurrencies().map((c) => c.code)).toContain('BTC');
  });
});

describe('catalogue configuration', () => {
  it('takes token contracts and switched-off currencies from the configuration', async () => {
    const { resetConfig } = await import('../../../shared/config/config.js');
    const { tokenContract } = await import('../../../shared/runtime/currencies.js');
    const { disabledCurrencies } = await import('../../../shared/runtime/rates.js');
    Object.assign(process.env, {
      TABLE_NAME: 'unit',
      STAGE: 'local',
      TOKEN_CONTRACTS: '{"USDTERC20":"0x5FbDB2315678afecb367f032d93F642f64180aa3"}',
      DISABLED_CURRENCIES: 'BTC, MATIC',
    });
    resetConfig();
    try {
      expect(tokenContract('USDTERC20')).toBe('0x5FbDB2315678afecb367f032d93F642f64180aa3');
      expect(tokenContract('USDCERC20')).toBeNull();
      expect([...disabledCurrencies()]).toEqual(['BTC', 'MATIC']);
      process.env.STAGE = 'prod';
      process.env.TOKEN_CONTRACTS = '{}';
      resetConfig();
      expect(tokenContract('USDCERC20')).toBe('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48');
    } finally {
      delete process.env.TOKEN_CONTRACTS;
      delete process.env.DISABLED_CURRENCIES;
      delete process.env.STAGE;
      resetConfig();
    }
  });
});
