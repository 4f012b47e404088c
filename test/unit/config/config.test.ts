import { btcNetworkOf, parseConfig, platformLimits } from '../../../shared/config/config.js';

describe('parseConfig', () => {
  it('fills every default from an environment that names only the table', () => {
    const cfg = parseConfig({ TABLE_NAME: 'gateway' });
    expect(cfg).toMatchObject({
      TABLE_NAME: 'gateway',
      AWS_REGION: 'us-east-1',
      STAGE: 'prod',
      isProduction: true,
      ALLOW_LOOPBACK_CALLBACKS: false,
      ACCESS_TOKEN_TTL_SECONDS: 3600,
      IDEMPOTENCY_TTL_SECONDS: 86_400,
      RATES_SOURCE_URL: 'https://api.coingecko.com/api/v3',
      FEE_SHARDS: 8,
      DISABLED_CURRENCIES: [],
      TOKEN_CONTRACTS: {},
      WITHDRAWAL_NETWORK_FEES: {},
      TRON_FEE_LIMIT_SUN: 100_000_000n,
      BTC_NETWORK: 'mainnet',
      CUSTODY_SOLANA_POLL_SECONDS: 5,
      PAYMENT_UNDERPAY_TOLERANCE_PERCENT: '0',
      CHAIN_TX_MAX_FEE_PER_GAS_WEI: 500_000_000_000n,
      CHAIN_TX_MAX_PRIORITY_FEE_WEI: 20_000_000_000n,
    });
    expect(platformLimits(cfg)).toEqual({
      daily_payment_limit: '1000000.00',
      daily_withdrawal_limit: '1000000.00',
      max_payment_amount: '100000.00',
      max_withdrawal_amount: '100000.00',
    });
    // Unset optional variables are absent, not present as undefined.
    expect('RATES_SOURCE' in cfg).toBe(false);
    expect('PAYMENT_CONFIRMATIONS' in cfg).toBe(false);
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it('reads each kind of value', () => {
    const cfg = parseConfig({
      TABLE_NAME: 'gateway',
      STAGE: 'local',
      ALLOW_LOOPBACK_CALLBACKS: '1',
      RATES_SOURCE: 'reference',
      DISABLED_CURRENCIES: 'BTC, TRX',
      EVM_RPC_URLS: '{"ETH":"http://127.0.0.1:8545"}',
      PAYMENT_CONFIRMATIONS: '2',
      DEFAULT_MAX_PAYMENT_AMOUNT: 'none',
      WITHDRAWAL_NETWORK_FEES: '{"USDTERC20":"1.5"}',
    });
    expect(cfg).toMatchObject({
      isProduction: false,
      BTC_NETWORK: 'local',
      ALLOW_LOOPBACK_CALLBACKS: true,
      RATES_SOURCE: 'reference',
      DISABLED_CURRENCIES: ['BTC', 'TRX'],
      EVM_RPC_URLS: { ETH: 'http://127.0.0.1:8545' },
      PAYMENT_CONFIRMATIONS: 2,
      DEFAULT_MAX_PAYMENT_AMOUNT: null,
    });
    expect(cfg.WITHDRAWAL_NETWORK_FEES).toEqual(parseConfig({ TABLE_NAME: 't', WITHDRAWAL_NETWORK_FEES: '{"USDTERC20":"1.5"}' }).WITHDRAWAL_NETWORK_FEES);
    expect(btcNetworkOf('staging')).toBe('testnet');
  });

  it('names every bad variable in one error, in the table order', () => {
    const bad = {
      TABLE_NAME: '',
      ALLOW_LOOPBACK_CALLBACKS: 'yes',
      ACCESS_TOKEN_TTL_SECONDS: '0',
      RATES_SOURCE: 'ftp',
      RATES_SOURCE_URL: 'nowhere',
      FEE_SHARDS: '51',
      TOKEN_CONTRACTS: '[]',
      TRON_FEE_LIMIT_SUN: '1.5',
      BTC_NETWORK: 'regtest',
      CUSTODY_SOLANA_POLL_SECONDS: '0',
      PAYMENT_UNDERPAY_TOLERANCE_PERCENT: '-1',
      WITHDRAWAL_BATCH_CONTRACT: '0x1',
      HOT_WALLET_MIN_BALANCE: '{"ETH":"lots"}',
      DEFAULT_DAILY_WITHDRAWAL_LIMIT: '1e6',
      EXPORT_URL_TTL_SECONDS: '604801',
    };
    let message = '';
    try {
      parseConfig(bad);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'Invalid configuration: ' +
        [
          'TABLE_NAME: must not be empty',
          'ALLOW_LOOPBACK_CALLBACKS: must be true, false, 1 or 0, not "yes"',
          'ACCESS_TOKEN_TTL_SECONDS: must be at least 1, not 0',
          'RATES_SOURCE: must be one of http, reference, not "ftp"',
          'RATES_SOURCE_URL: must be a URL, not "nowhere"',
          'FEE_SHARDS: must be at most 50, not 51',
          'TOKEN_CONTRACTS: must be a JSON object of currency code to address',
          'TRON_FEE_LIMIT_SUN: must be decimal digits, not "1.5"',
          'BTC_NETWORK: must be one of mainnet, testnet, local, not "regtest"',
          'CUSTODY_SOLANA_POLL_SECONDS: must be at least 0.1, not 0',
          'PAYMENT_UNDERPAY_TOLERANCE_PERCENT: must be a non-negative decimal such as 0.5, not "-1"',
          'WITHDRAWAL_BATCH_CONTRACT: must be a 0x-prefixed 20-byte hex address',
          'HOT_WALLET_MIN_BALANCE: must be a JSON object of network to decimal amount, e.g. {"ETH":"0.05"}',
          'DEFAULT_DAILY_WITHDRAWAL_LIMIT: must be a USD amount such as 10000.00, or none',
          'EXPORT_URL_TTL_SECONDS: must be at most 604800, not 604801',
        ].join('; '),
    );
  });

  it('refuses an environment without the table', () => {
    expect(() => parseConfig({})).toThrow('Invalid configuration: TABLE_NAME: is required');
  });
});
