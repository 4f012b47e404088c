import { AbiCoder, Interface, getAddress, keccak256, toUtf8Bytes } from 'ethers';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import {
  SUBSCRIPTION_COLLECTOR_ABI,
  chargeBatchData,
  chargeFailureReason,
  collectorEventsOf,
  collectorSetup,
  decodeChargeBatchData,
  InvalidMandateError,
  mandateId,
  mandatePeriodSeconds,
  mandateSalt,
} from '../../../shared/chain/evm/collector.js';
import type { MandateTerms } from '../../../shared/chain/evm/collector.js';

const DAY = 86_400;
const terms = (over: Partial<MandateTerms> = {}): MandateTerms => ({
  subscriber: '0x00000000000000000000000000000000000000a1',
  token: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  payee: '0x00000000000000000000000000000000000000b2',
  perChargeCap: 12_500_000n,
  perPeriodCap: 12_500_000n,
  periodSeconds: 28 * DAY,
  start: 1_900_000_000,
  salt: 7n,
  ...over,
});
const COLLECTOR = '0x00000000000000000000000000000000000000c3';

describe('mandatePeriodSeconds', () => {
  it('is the shortest time the plan interval can last', () => {
    expect(mandatePeriodSeconds('day', 1)).toBe(DAY);
    expect(mandatePeriodSeconds('week', 2)).toBe(14 * DAY);
    expect(mandatePeriodSeconds('month', 1)).toBe(28 * DAY);
    expect(mandatePeriodSeconds('month', 3)).toBe(89 * DAY);
    expect(mandatePeriodSeconds('month', 12)).toBe(365 * DAY);
    expect(mandatePeriodSeconds('month', 14)).toBe((365 + 59) * DAY);
    expect(mandatePeriodSeconds('year', 1)).toBe(365 * DAY);
    expect(() => mandatePeriodSeconds('month', 0)).toThrow(InvalidMandateError);
    expect(() => mandatePeriodSeconds('year', 200)).toThrow(InvalidMandateError);
  });
});

describe('mandateId', () => {
  it('is the EIP-712 struct hash of the terms, as the contract computes it', () => {
    const t = terms();
    const typehash = keccak256(
      toUtf8Bytes(
        'Mandate(address subscriber,address token,address payee,uint128 perChargeCap,uint128 perPeriodCap,uint32 periodSeconds,uint64 start,uint64 salt)',
      ),
    );
    const encoded = AbiCoder.defaultAbiCoder().encode(
      ['bytes32', 'address', 'address', 'address', 'uint128', 'uint128', 'uint32', 'uint64', 'uint64'],
      [typehash, t.subscriber, t.token, t.payee, t.perChargeCap, t.perPeriodCap, t.periodSeconds, t.start, t.salt],
    );
    expect(mandateId(t)).toBe(keccak256(encoded));
    expect(mandateId({ ...t, perPeriodCap: t.perPeriodCap + 1n })).not.toBe(mandateId(t));
    expect(mandateSalt('sub_123')).toBe(mandateSalt('sub_123'));
    expect(mandateSalt('sub_123')).not.toBe(mandateSalt('sub_124'));
    expect(mandateSalt('sub_123')).toBeLessThan(2n ** 64n);
  });

  it('refuses terms the contract would refuse', () => {
    expect(() => mandateId(terms({ perChargeCap: 0n }))).toThrow(InvalidMandateError);
    expect(() => mandateId(terms({ perPeriodCap: 1n }))).toThrow(InvalidMandateError);
    expect(() => mandateId(terms({ periodSeconds: 0 }))).toThrow(InvalidMandateError);
    expect(() => mandateId(terms({ salt: 2n ** 64n }))).toThrow(InvalidMandateError);
    expect(() => mandateId(terms({ subscriber: '0x1234' }))).toThrow();
  });
});

describe('collectorSetup', () => {
  it('carries the approval and the authorisation for the subscriber to send, and the typed data to sign instead', () => {
    const t = terms();
    const setup = collectorSetup({ chainId: 1, collector: COLLECTOR, terms: t, allowance: 12n * t.perPeriodCap });
    expect(setup.approve.to).toBe(t.token);
    expect(new Interface(ERC20_ABI).decodeFunctionData('approve', setup.approve.data).toArray()).toEqual([getAddress(COLLECTOR), 12n * t.perPeriodCap]);
    expect(setup.authorize.to).toBe(getAddress(COLLECTOR));
    const [m] = new Interface(SUBSCRIPTION_COLLECTOR_ABI).decodeFunctionData('authorize', setup.authorize.data);
    expect((m as { toArray(): unknown[] }).toArray()).toEqual([
      getAddress(t.subscriber),
      t.token,
      getAddress(t.payee),
      t.perChargeCap,
      t.perPeriodCap,
      BigInt(t.periodSeconds),
      BigInt(t.start),
      t.salt,
    ]);
    expect(setup.mandateId).toBe(mandateId(t));
    expect(setup.typedData.domain).toEqual({
      name: 'SubscriptionCollector',
      version: '1',
      chainId: 1,
      verifyingContract: '0x00000000000000000000000000000000000000C3',
    });
    expect(setup.typedData.message.perChargeCap).toBe('12500000');
    expect(() => collectorSetup({ chainId: 1, collector: COLLECTOR, terms: t, allowance: 1n })).toThrow(InvalidMandateError);
  });
});

describe('chargeBatchData', () => {
  it('packs three words a charge and decodes back to the same charges', () => {
    const charges = [
      { mandate: terms(), period: 0n, amount: 12_500_000n },
      {
        mandate: terms({ subscriber: '0xffffffffffffffffffffffffffffffffffffffff', perPeriodCap: 2n ** 128n - 1n, salt: 2n ** 64n - 1n, start: 0 }),
        period: 2n ** 64n - 1n,
        amount: 2n ** 128n - 1n,
      },
    ];
    const data = chargeBatchData(charges);
    const [, , words] = new Interface(SUBSCRIPTION_COLLECTOR_ABI).decodeFunctionData('chargeBatch', data) as unknown as [string, string, bigint[]];
    expect(words).toHaveLength(6);
    expect(decodeChargeBatchData(data)).toEqual(
      charges.map((c) => ({
        ...c,
        mandate: {
          ...c.mandate,
          subscriber: getAddress(c.mandate.subscriber),
          payee: getAddress(c.mandate.payee),
        },
      })),
    );
  });

  it('refuses an empty or oversized batch, mixed tokens, and amounts the contract cannot take', () => {
    const c = { mandate: terms(), period: 0n, amount: 1n };
    expect(() => chargeBatchData([])).toThrow(RangeError);
    expect(() => chargeBatchData(Array.from({ length: 257 }, () => c))).toThrow(RangeError);
    expect(() => chargeBatchData([c, { ...c, mandate: terms({ token: '0x00000000000000000000000000000000000000d4' }) }])).toThrow('one token');
    expect(() => chargeBatchData([{ ...c, amount: 0n }])).toThrow(InvalidMandateError);
    expect(() => chargeBatchData([{ ...c, period: 2n ** 64n }])).toThrow(InvalidMandateError);
  });
});

describe('collectorEventsOf', () => {
  const collectorIface = new Interface(SUBSCRIPTION_COLLECTOR_ABI);
  const erc20 = new Interface(ERC20_ABI);
  const log = (address: string, encoded: { topics: string[]; data: string }) => ({ address, topics: encoded.topics, data: encoded.data });

  it("reads the collector's charges and failures in order, and approvals of the collector only", () => {
    const id = mandateId(terms());
    const charged = collectorIface.getEvent('Charged');
    const failed = collectorIface.getEvent('ChargeFailed');
    const approval = erc20.getEvent('Approval');
    if (!charged || !failed || !approval) throw new Error('ABI');
    const logs = [
      log(COLLECTOR, collectorIface.encodeEventLog(charged, [id, 1n, 5n])),
      log(COLLECTOR, collectorIface.encodeEventLog(failed, [id, 2n, 5n, 7n])),
      // The same event from another contract, and an approval of someone else: skipped.
      log('0x00000000000000000000000000000000000000e5', collectorIface.encodeEventLog(charged, [id, 1n, 5n])),
      log(terms().token, erc20.encodeEventLog(approval, [terms().subscriber, '0x00000000000000000000000000000000000000f6', 9n])),
      log(terms().token, erc20.encodeEventLog(approval, [terms().subscriber, COLLECTOR, 0n])),
    ];
    expect(collectorEventsOf(logs, COLLECTOR)).toEqual([
      { type: 'charged', mandateId: id, period: 1n, amount: 5n, logIndex: 0 },
      { type: 'charge_failed', mandateId: id, period: 2n, amount: 5n, reason: 'transfer_failed', logIndex: 1 },
      { type: 'approval', token: terms().token, subscriber: getAddress(terms().subscriber), allowance: 0n, logIndex: 4 },
    ]);
    expect(chargeFailureReason(1)).toBe('not_authorized');
    expect(() => chargeFailureReason(8)).toThrow(RangeError);
  });
});
