import { parseConfig } from '../../../shared/config/config.js';
import { CURRENCY_LIST, servedCurrencies } from '../../../shared/domain/currencies.js';
import { creditEntry, MAIN } from '../../../shared/domain/ledger.js';
import { servedNetworks } from '../../../shared/runtime/currencies.js';
import { scannedNetworks } from '../../../shared/runtime/scanner.js';
import { listCurrencies, ListCurrenciesQuery } from '../../../shared/usecases/currencies/list-currencies.js';
import { CreatePaymentBody, createPayment } from '../../../shared/usecases/payments/create-payment.js';
import { EstimateBody, estimatePayment, minAmount } from '../../../shared/usecases/payments/estimate.js';
import { VirtualClock } from '../../support/clock.js';
import { InMemoryLedger } from '../../support/fakes/ledger.js';
import { fakePayments, fixedRatesDeps, serving } from '../../support/fakes/payments.js';
import { aTenant } from '../../support/fakes/tenants.js';

/** Which currencies a deployment serves, read once from its configuration, and the payment side of the rule. */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const tenant = aTenant();
const EVM_FACTORY = '0x1111111111111111111111111111111111111111';
const TRON = (byte: number) => 'T' + String.fromCharCode(65 + byte).repeat(33);

describe('servedNetworks (from configuration)', () => {
  const configure = (env: Record<string, string>) => parseConfig({ TABLE_NAME: 't', STAGE: 'prod', ...env });

  it('serves payments where a chain is reached and a factory is set, withdrawals where a chain is reached and a key signs', () => {
    const served = servedNetworks(
      configure({
        EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:8545', BSC: 'http://127.0.0.1:8546' }),
        FORWARDER_FACTORIES: JSON.stringify({ ETH: EVM_FACTORY, POLYGON: EVM_FACTORY, TRX: TRON(1), BTC: 'xpub' }),
        FORWARDER_IMPLEMENTATION_TRX: TRON(2),
        TRON_API_URL: 'http://127.0.0.1:9090',
        HOT_WALLET_KEY_ID: 'key-1',
      }),
    );
    // POLYGON has a factory but no RPC URL; BSC an RPC URL but no factory; BTC no Esplora API (a factory means nothing to it).
    expect([...served.payments].sort()).toEqual(['ETH', 'TRX']);
    expect([...served.withdrawals].sort()).toEqual(['BSC', 'ETH', 'TRX']);
  });

  it('serves no withdrawals without a signing key, no TRON payments without the implementation, no token without its contract', () => {
    const served = servedNetworks(
      configure({
        STAGE: 'staging',
        EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:8545' }),
        FORWARDER_FACTORIES: JSON.stringify({ ETH: EVM_FACTORY, TRX: TRON(1) }),
        TRON_API_URL: 'http://127.0.0.1:9090',
        TOKEN_CONTRACTS: JSON.stringify({ USDTERC20: '0x2222222222222222222222222222222222222222' }),
      }),
    );
    expect([...served.payments]).toEqual(['ETH']);
    expect(served.withdrawals.size).toBe(0);
    // Staging knows no contract unless configured: only the configured token and the native coin are payable.
    expect(servedCurrencies('payments', served).map((c) => c.code)).toEqual(['USDTERC20', 'ETH']);
    expect(servedCurrencies('withdrawals', served)).toEqual([]);
  });

  it('the scanner scans exactly the networks payments are served on', () => {
    const cfg = configure({
      EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:8545', BSC: 'http://127.0.0.1:8546' }),
      FORWARDER_FACTORIES: JSON.stringify({ ETH: EVM_FACTORY, POLYGON: EVM_FACTORY }),
    });
    expect(scannedNetworks(cfg)).toEqual([{ network: 'ETH', family: 'evm', url: 'http://127.0.0.1:8545' }]);
    expect([...servedNetworks(cfg).payments]).toEqual(['ETH']);
  });

  it('serves Bitcoin payments and withdrawals only with its Esplora API and the hot wallet key, and scans it there', () => {
    const notReached = servedNetworks(
      configure({
        EVM_RPC_URLS: JSON.stringify({ BTC: 'http://127.0.0.1:8332' }),
        FORWARDER_FACTORIES: JSON.stringify({ BTC: EVM_FACTORY }),
        HOT_WALLET_KEY_ID: 'key-1',
      }),
    );
    expect(notReached.payments.has('BTC') || notReached.withdrawals.has('BTC')).toBe(false);
    // The key is every deposit address's key: without it not even payments are taken.
    const keyless = servedNetworks(configure({ BTC_API_URL: 'http://127.0.0.1:3002' }));
    expect(keyless.payments.has('BTC') || keyless.withdrawals.has('BTC')).toBe(false);
    const cfg = configure({ BTC_API_URL: 'http://127.0.0.1:3002', HOT_WALLET_KEY_ID: 'key-1' });
    const served = servedNetworks(cfg);
    expect([...served.payments]).toEqual(['BTC']);
    expect([...served.withdrawals]).toEqual(['BTC']);
    expect(servedCurrencies('payments', served).map((c) => c.code)).toEqual(['BTC']);
    expect(servedCurrencies('withdrawals', served).map((c) => c.code)).toEqual(['BTC']);
    expect(scannedNetworks(cfg)).toEqual([{ network: 'BTC', family: 'btc', url: 'http://127.0.0.1:3002' }]);
  });

  it('takes the Bitcoin network from BTC_NETWORK, else from the stage', () => {
    expect(configure({}).BTC_NETWORK).toBe('mainnet');
    expect(configure({ STAGE: 'local' }).BTC_NETWORK).toBe('local');
    expect(configure({ STAGE: 'staging' }).BTC_NETWORK).toBe('testnet');
    expect(configure({ STAGE: 'staging', BTC_NETWORK: 'mainnet' }).BTC_NETWORK).toBe('mainnet');
    expect(() => configure({ BTC_NETWORK: 'regtest' })).toThrow(/BTC_NETWORK/);
  });
});

describe('GET /currencies/ lists only what is served', () => {
  const now = T0;
  const input = (q: Record<string, string>) => ({ tenantId: 't1', query: ListCurrenciesQuery().parse(q), now });

  it('offers for payments only currencies of served networks, and for withdrawals only those sent here', async () => {
    const ledger = new InMemoryLedger();
    for (const currency of ['USDTERC20', 'USDTBSC', 'BTC'] as const) {
      await ledger.post({ tenantId: 't1', entry: creditEntry({ account: MAIN, currency, amount: '50', type: 'adjustment', reason: 'seed' }) });
    }
    const deps = { ledger, rates: fixedRatesDeps(new VirtualClock(T0)), served: serving(['ETH', 'TRX']) };
    const payable = (await listCurrencies(input({}), deps)).currencies as string[];
    expect(payable).toEqual(['USDTERC20', 'USDCERC20', 'DAIERC20', 'USDTTRC20', 'ETH', 'WETH']);
    const records = (await listCurrencies(input({ full: 'true', min_max: 'true' }), deps)).currencies as { currency: string }[];
    expect(records.map((r) => r.currency)).toEqual(payable);
    expect(await listCurrencies(input({ withdrawal: 'true' }), deps)).toEqual({ currencies: ['USDTERC20'] });
  });
});

describe('payments refuse a currency this deployment does not serve', () => {
  const fake = () => fakePayments({ clock: new VirtualClock(T0), served: serving(['ETH', 'TRX']) });
  const refusal = (currency: string) => ({
    code: 'invalid_currency',
    details: { currency, supported_currencies: ['USDTERC20', 'USDCERC20', 'DAIERC20', 'USDTTRC20', 'ETH', 'WETH'] },
  });

  it('creation, estimate and min-amount answer as for an unknown currency, with only served ones listed', async () => {
    const deps = fake();
    for (const currency of ['USDTBSC', 'USDTPOLYGON', 'MATIC', 'BTC', 'DOGE']) {
      const create = createPayment({ body: CreatePaymentBody().parse({ amount: '25', currency }), tenant, now: T0 }, deps);
      await expect(create).rejects.toMatchObject({ ...refusal(currency), status: 422 });
      await expect(estimatePayment(EstimateBody().parse({ amount: '25', currency }), tenant, T0, deps)).rejects.toMatchObject(refusal(currency));
      await expect(minAmount({ currency }, T0, deps)).rejects.toMatchObject(refusal(currency));
    }
    await expect(
      createPayment({ body: CreatePaymentBody().parse({ amount: '25', blockchain: 'BSC', token: 'USDT' }), tenant, now: T0 }, deps),
    ).rejects.toMatchObject({ code: 'invalid_currency', details: { field: 'token' } });
    expect(await deps.payments.count(tenant.id)).toBe(0);
    const served = await createPayment({ body: CreatePaymentBody().parse({ amount: '25', currency: 'USDTERC20' }), tenant, now: T0 }, deps);
    expect(served.status).toBe('waiting');
  });

  it('a token whose contract this deployment does not know is not payable', async () => {
    const deps = fakePayments({ clock: new VirtualClock(T0), served: serving(['ETH'], ['ETH'], ['USDCERC20']) });
    await expect(createPayment({ body: CreatePaymentBody().parse({ amount: '25', currency: 'USDCERC20' }), tenant, now: T0 }, deps)).rejects.toMatchObject({
      code: 'invalid_currency',
    });
    expect(CURRENCY_LIST.filter((c) => servedCurrencies('payments', deps.served).includes(c)).map((c) => c.code)).not.toContain('USDCERC20');
  });
});
