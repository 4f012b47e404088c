import { parseConfig } from '../../../shared/config/config.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import type { Tenant } from '../../../shared/domain/tenant.js';
import { defaultSettings } from '../../../shared/domain/tenant.js';
import { DEFAULT_NETWORK_FEES, networkFeeTable, parseNetworkFeeOverrides, quoteWithdrawal, withdrawalQuote } from '../../../shared/domain/withdrawal-fees.js';
import { EstimateWithdrawalBody, estimateWithdrawal, FeeEstimateBody, feeEstimate, withdrawalLimits } from '../../../shared/usecases/withdrawals/estimate.js';
import { withdrawalFees } from '../../../shared/runtime/withdrawals.js';
import { CHAIN_NETWORKS, serving } from '../../support/fakes/payments.js';

/** Withdrawal network fees: catalogue defaults, overridden by the operator's `WITHDRAWAL_NETWORK_FEES`. */

const tenant = { id: 'tenant-1', settings: defaultSettings({ requestsPerHour: 1000, paymentCreationsPerHour: 100 }) } as unknown as Tenant;
/** Configuration of a deployment with this `WITHDRAWAL_NETWORK_FEES` (unset: undefined). */
const configure = (fees: string | undefined) =>
  parseConfig({ TABLE_NAME: 'unit', STAGE: 'local', DISABLED_CURRENCIES: '', ...(fees === undefined ? {} : { WITHDRAWAL_NETWORK_FEES: fees }) });
/** What the withdrawal estimates read, wired from that configuration as the withdrawals runtime does. */
const depsOf = (fees: string | undefined) => ({
  fees: withdrawalFees(configure(fees)),
  rates: { disabled: new Set<string>() },
  served: serving(CHAIN_NETWORKS),
});

describe('network fee table', () => {
  it('applies overrides over the defaults, canonical decimals, other currencies unchanged', () => {
    const overrides = parseNetworkFeeOverrides('{"USDTERC20":"1.50","ETH":"0.0020","USDTTRC20":"0"}');
    expect(overrides).toEqual({ USDTERC20: '1.5', ETH: '0.002', USDTTRC20: '0' });
    const table = networkFeeTable(overrides);
    expect(table).toMatchObject({ USDTERC20: '1.5', ETH: '0.002', USDTTRC20: '0', USDCERC20: DEFAULT_NETWORK_FEES.USDCERC20 });
    expect(networkFeeTable()).toEqual(DEFAULT_NETWORK_FEES);
    expect(parseNetworkFeeOverrides('')).toEqual({});
    expect(parseNetworkFeeOverrides(' {} ')).toEqual({});
  });

  it('refuses unknown currencies, negative, non-string and over-precise fees, naming each', () => {
    expect(() => parseNetworkFeeOverrides('{"USDTXYZ":"1"}')).toThrow(/unknown currency code "USDTXYZ" \(known: USDTERC20, /);
    expect(() => parseNetworkFeeOverrides('{"usdterc20":"1"}')).toThrow(/unknown currency code "usdterc20"/);
    expect(() => parseNetworkFeeOverrides('{"USDTERC20":"-1"}')).toThrow('USDTERC20 must be a non-negative decimal string such as "1.5", not "-1"');
    expect(() => parseNetworkFeeOverrides('{"USDTERC20":1.5}')).toThrow('USDTERC20 must be a non-negative decimal string such as "1.5", not 1.5');
    expect(() => parseNetworkFeeOverrides('{"USDTERC20":"1e3"}')).toThrow(/USDTERC20 must be a non-negative decimal string/);
    expect(() => parseNetworkFeeOverrides('{"USDTERC20":""}')).toThrow(/USDTERC20 must be a non-negative decimal string/);
    // USDT has 6 decimals: a seventh place could not be held.
    expect(() => parseNetworkFeeOverrides('{"USDTERC20":"0.0000001"}')).toThrow('USDTERC20 has more than 6 decimal places: 0.0000001');
    expect(() => parseNetworkFeeOverrides('{"USDTERC20":"-1","BAD":"1"}')).toThrow(/USDTERC20 must be .*; unknown currency code "BAD"/);
    expect(() => parseNetworkFeeOverrides('USDTERC20=1.5')).toThrow('must be a JSON object of currency code to fee, e.g. {"USDTERC20":"1.5"}');
    expect(() => parseNetworkFeeOverrides('["1.5"]')).toThrow(/must be a JSON object/);
    expect(() => parseNetworkFeeOverrides('null')).toThrow(/must be a JSON object/);
  });

  it('an override changes the quote: network fee, total fee and the total a creation holds', () => {
    const networkFees = networkFeeTable({ USDTERC20: '1.5' });
    expect(withdrawalQuote(CURRENCIES.USDTERC20, '100', '1', networkFees)).toEqual({
      amount: '100',
      networkFee: '1.5',
      platformFee: '1',
      totalFee: '2.5',
      totalDeducted: '102.5',
    });
    expect(withdrawalQuote(CURRENCIES.USDTERC20, '100', '1', DEFAULT_NETWORK_FEES).totalDeducted).toBe('104');
    // Fees included: 102.5 now buys a received amount of 100.
    expect(quoteWithdrawal({ currency: CURRENCIES.USDTERC20, amount: '102.5', feePercent: '1', finalAmount: false, networkFees }).amount).toBe('100');
  });
});

describe('configuration WITHDRAWAL_NETWORK_FEES', () => {
  it('is parsed into overrides; absent, there are none', () => {
    expect(configure('{"USDTERC20":"1.5"}').WITHDRAWAL_NETWORK_FEES).toEqual({ USDTERC20: '1.5' });
    expect(configure(undefined).WITHDRAWAL_NETWORK_FEES).toEqual({});
    expect(depsOf(undefined).fees.networkFees).toEqual(DEFAULT_NETWORK_FEES);
  });

  it('a bad value fails configuration parsing with a clear message', () => {
    expect(() => configure('{"USDTXYZ":"1"}')).toThrow(/^Invalid configuration: WITHDRAWAL_NETWORK_FEES: unknown currency code "USDTXYZ" \(known: /);
    expect(() => configure('{"USDTERC20":"-0.5"}')).toThrow(
      'Invalid configuration: WITHDRAWAL_NETWORK_FEES: USDTERC20 must be a non-negative decimal string such as "1.5", not "-0.5"',
    );
    expect(() => configure('{"USDTERC20":1.5}')).toThrow(
      'Invalid configuration: WITHDRAWAL_NETWORK_FEES: USDTERC20 must be a non-negative decimal string such as "1.5", not 1.5',
    );
    expect(() => configure('1.5')).toThrow(
      'Invalid configuration: WITHDRAWAL_NETWORK_FEES: must be a JSON object of currency code to fee, e.g. {"USDTERC20":"1.5"}',
    );
  });

  it('an override changes the estimate, the fee estimate and the limits (read from configuration)', async () => {
    const body = EstimateWithdrawalBody().parse({ amount: '100', currency: 'USDTERC20', final_amount: true });
    expect(await estimateWithdrawal(body, tenant, depsOf(undefined))).toMatchObject({
      network_fee: '3.00000000',
      fee: '4.00000000',
      total_deducted: '104.00000000',
    });

    const overridden = depsOf('{"USDTERC20":"1.5"}');
    expect(await estimateWithdrawal(body, tenant, overridden)).toMatchObject({
      amount: '100.00000000',
      network_fee: '1.50000000',
      fee: '2.50000000',
      total_deducted: '102.50000000',
    });
    const gross = EstimateWithdrawalBody().parse({ amount: '102.5', currency: 'USDTERC20' });
    expect(await estimateWithdrawal(gross, tenant, overridden)).toMatchObject({
      amount: '100.00000000',
      network_fee: '1.50000000',
      total_deducted: '102.50000000',
    });
    expect(await feeEstimate(FeeEstimateBody().parse({ amount: '100', currency: 'USDTERC20' }), tenant, overridden)).toMatchObject({
      network_fee: '1.50000000',
      total_deducted: '102.50000000',
    });
    const limits = withdrawalLimits(tenant, overridden).currencies as { currency: string; network_fee: string }[];
    expect(limits.find((c) => c.currency === 'USDTERC20')?.network_fee).toBe('1.50000000');
    expect(limits.find((c) => c.currency === 'USDCERC20')?.network_fee).toBe('3.00000000');
    // Passed in explicitly, the table wins over configuration.
    expect(await estimateWithdrawal(body, tenant, { ...overridden, fees: { networkFees: networkFeeTable({ USDTERC20: '0' }) } })).toMatchObject({
      network_fee: '0.00000000',
      total_deducted: '101.00000000',
    });
  });
});
