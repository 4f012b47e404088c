/**
 * The subscription collector contract (contracts/SubscriptionCollector.sol) as runtime code uses it: a pull
 * subscription's `setup` (the addresses, the caps and the call data the subscriber signs), the gateway's
 * `chargeBatch` call data, and what mined transactions say (`Charged`, `ChargeFailed`, `MandateAuthorized`,
 * `MandateRevoked`, and the token's `Approval` of the collector). No build artifacts; no I/O.
 * How it works, for merchants and subscribers: docs/subscriptions-pull.md.
 */
import { Interface, TypedDataEncoder, getAddress, zeroPadValue } from 'ethers';
import type { ReceiptLog } from './batch-payout.js';
import { ERC20_ABI } from './abi.js';
import type { MandateTerms } from './mandate.js';
import { collectorSetup, InvalidMandateError, mandateId, mandatePeriodSeconds, mandateSalt, mandateTypedData, normalizeMandate } from './mandate.js';

/** contracts/SubscriptionCollector.sol (the integration test keeps it in step with the compiled ABI). */
export const SUBSCRIPTION_COLLECTOR_ABI = [
  'constructor(address collector_)',
  'function collector() view returns (address)',
  'function MAX_CHARGES() view returns (uint256)',
  'function MANDATE_TYPEHASH() view returns (bytes32)',
  'function NOT_AUTHORIZED() view returns (uint8)',
  'function REVOKED() view returns (uint8)',
  'function ABOVE_CHARGE_CAP() view returns (uint8)',
  'function ABOVE_PERIOD_CAP() view returns (uint8)',
  'function PERIOD_NOT_OPEN() view returns (uint8)',
  'function PERIOD_PASSED() view returns (uint8)',
  'function TRANSFER_FAILED() view returns (uint8)',
  'function domainSeparator() view returns (bytes32)',
  'function mandateId((address subscriber, address token, address payee, uint128 perChargeCap, uint128 perPeriodCap, uint32 periodSeconds, uint64 start, uint64 salt) m) pure returns (bytes32)',
  'function mandateState(bytes32 id) view returns (uint8 status, uint64 lastPeriod, uint128 chargedInPeriod)',
  'function authorize((address subscriber, address token, address payee, uint128 perChargeCap, uint128 perPeriodCap, uint32 periodSeconds, uint64 start, uint64 salt) m) returns (bytes32 id)',
  'function authorizeWithSignature((address subscriber, address token, address payee, uint128 perChargeCap, uint128 perPeriodCap, uint32 periodSeconds, uint64 start, uint64 salt) m, bytes signature) returns (bytes32 id)',
  'function revoke((address subscriber, address token, address payee, uint128 perChargeCap, uint128 perPeriodCap, uint32 periodSeconds, uint64 start, uint64 salt) m)',
  'function charge((address subscriber, address token, address payee, uint128 perChargeCap, uint128 perPeriodCap, uint32 periodSeconds, uint64 start, uint64 salt) m, uint64 period, uint128 amount)',
  'function chargeBatch(address token, address payee, uint256[] charges) returns (uint256 failed)',
  'event MandateAuthorized(bytes32 indexed mandateId, address indexed subscriber, address indexed token, address payee, uint256 perChargeCap, uint256 perPeriodCap, uint256 periodSeconds, uint256 start, uint256 salt)',
  'event MandateRevoked(bytes32 indexed mandateId, address indexed subscriber)',
  'event Charged(bytes32 indexed mandateId, uint256 period, uint256 amount)',
  'event ChargeFailed(bytes32 indexed mandateId, uint256 period, uint256 amount, uint256 reason)',
  'error NotCollector()',
  'error NotSubscriber()',
  'error ZeroAddress()',
  'error InvalidTerms()',
  'error MandateRevokedAlready()',
  'error BadSignature()',
  'error TooManyCharges()',
  'error MalformedCharges()',
  'error NotAContract(address token)',
  'error ChargeRefused(uint256 reason)',
] as const;

const iface = new Interface(SUBSCRIPTION_COLLECTOR_ABI);

// The mandate's terms, id, period, salt and the subscriber's setup need no chain client: ./mandate.ts.
export {
  InvalidMandateError,
  MANDATE_TYPES,
  authorizeData,
  collectorSetup,
  mandateId,
  mandatePeriodSeconds,
  mandateSalt,
  mandateTypedData,
  normalizeMandate,
} from './mandate.js';
export type { CollectorSetup, MandateTerms, MandateTypedData, WalletCall } from './mandate.js';

function inRange(name: string, value: bigint, max: bigint, min = 0n): void {
  if (value < min || value > max) throw new InvalidMandateError(`${name} must be between ${min} and ${max}, not ${value}`);
}
const erc20Iface = new Interface(ERC20_ABI);

/** The contract's bitmap width: at most this many charges in one `chargeBatch`. */
export const COLLECTOR_MAX_CHARGES = 256;
const UINT64_MAX = 2n ** 64n - 1n;
const UINT128_MAX = 2n ** 128n - 1n;

/** Why a charge was not made (the contract's reason codes 1..7). */
export type ChargeFailureReason =
  'not_authorized' | 'revoked' | 'above_charge_cap' | 'above_period_cap' | 'period_not_open' | 'period_passed' | 'transfer_failed';

const REASONS: readonly ChargeFailureReason[] = [
  'not_authorized',
  'revoked',
  'above_charge_cap',
  'above_period_cap',
  'period_not_open',
  'period_passed',
  'transfer_failed',
];

/** A reason code of `ChargeFailed` / `ChargeRefused` by name. */
export function chargeFailureReason(code: bigint | number): ChargeFailureReason {
  const reason = REASONS[Number(code) - 1];
  if (!reason) throw new RangeError(`unknown charge failure reason ${code}`);
  return reason;
}

const tuple = (m: MandateTerms) => [m.subscriber, m.token, m.payee, m.perChargeCap, m.perPeriodCap, m.periodSeconds, m.start, m.salt];

/** The digest the subscriber signs (EIP-712), for checking a signature off chain. */
export function mandateDigest(terms: MandateTerms, chain: { chainId: number; collector: string }): string {
  const t = mandateTypedData(terms, chain);
  return TypedDataEncoder.hash(t.domain, t.types, t.message);
}

/** `authorizeWithSignature(terms, signature)` call data (the gateway submits a subscriber's signed terms). */
export function authorizeWithSignatureData(terms: MandateTerms, signature: string): string {
  return iface.encodeFunctionData('authorizeWithSignature', [tuple(normalizeMandate(terms)), signature]).toLowerCase();
}

/** `revoke(terms)` call data (the subscriber sends it). */
export function revokeData(terms: MandateTerms): string {
  return iface.encodeFunctionData('revoke', [tuple(normalizeMandate(terms))]).toLowerCase();
}

/** One charge: the mandate, its period number (the subscription's cycle: 0 for the first) and the amount. */
export interface MandateCharge {
  readonly mandate: MandateTerms;
  readonly period: bigint;
  readonly amount: bigint;
}

function checkCharge(c: MandateCharge): void {
  inRange('period', c.period, UINT64_MAX);
  inRange('amount', c.amount, UINT128_MAX, 1n);
}

/** `charge(terms, period, amount)` call data: one charge, the whole transaction reverts when it cannot be made. */
export function chargeData(c: MandateCharge): string {
  checkCharge(c);
  return iface.encodeFunctionData('charge', [tuple(normalizeMandate(c.mandate)), c.period, c.amount]).toLowerCase();
}

const MASK64 = (1n << 64n) - 1n;
const MASK32 = (1n << 32n) - 1n;

/**
 * `chargeBatch(token, payee, charges)` call data: all charges of one token and payee, 1 to 256 of them. Each charge
 * is three packed words (the contract's layout): subscriber | start | periodSeconds; perChargeCap | perPeriodCap;
 * amount | period | salt.
 */
export function chargeBatchData(charges: readonly MandateCharge[]): string {
  if (charges.length === 0 || charges.length > COLLECTOR_MAX_CHARGES)
    throw new RangeError(`a batch makes 1 to ${COLLECTOR_MAX_CHARGES} charges, not ${charges.length}`);
  const first = normalizeMandate((charges[0] as MandateCharge).mandate);
  const words = charges.flatMap((c) => {
    checkCharge(c);
    const m = normalizeMandate(c.mandate);
    if (m.token !== first.token || m.payee !== first.payee) throw new RangeError('a batch charges one token to one payee');
    return [
      (BigInt(m.subscriber) << 96n) | (BigInt(m.start) << 32n) | BigInt(m.periodSeconds),
      (m.perChargeCap << 128n) | m.perPeriodCap,
      (c.amount << 128n) | (c.period << 64n) | m.salt,
    ];
  });
  return iface.encodeFunctionData('chargeBatch', [first.token, first.payee, words]).toLowerCase();
}

/** The charges of `chargeBatch` call data, in order, with their mandates' terms. */
export function decodeChargeBatchData(data: string): MandateCharge[] {
  const [token, payee, words] = iface.decodeFunctionData('chargeBatch', data) as unknown as [string, string, bigint[]];
  if (words.length % 3 !== 0) throw new RangeError(`chargeBatch carries ${words.length} words, not three a charge`);
  const out: MandateCharge[] = [];
  for (let i = 0; i < words.length; i += 3) {
    const [w0, w1, w2] = [words[i] ?? 0n, words[i + 1] ?? 0n, words[i + 2] ?? 0n];
    out.push({
      mandate: {
        subscriber: getAddress(`0x${(w0 >> 96n).toString(16).padStart(40, '0')}`),
        token: getAddress(token),
        payee: getAddress(payee),
        perChargeCap: w1 >> 128n,
        perPeriodCap: w1 & UINT128_MAX,
        periodSeconds: Number(w0 & MASK32),
        start: Number((w0 >> 32n) & MASK64),
        salt: w2 & MASK64,
      },
      period: (w2 >> 64n) & MASK64,
      amount: w2 >> 128n,
    });
  }
  return out;
}

/** What the collector's events and the tokens' approvals of it say. */
export type CollectorEvent =
  | { readonly type: 'charged'; readonly mandateId: string; readonly period: bigint; readonly amount: bigint; readonly logIndex: number }
  | {
      readonly type: 'charge_failed';
      readonly mandateId: string;
      readonly period: bigint;
      readonly amount: bigint;
      readonly reason: ChargeFailureReason;
      readonly logIndex: number;
    }
  | { readonly type: 'authorized'; readonly mandateId: string; readonly terms: MandateTerms; readonly logIndex: number }
  | { readonly type: 'revoked'; readonly mandateId: string; readonly subscriber: string; readonly logIndex: number }
  | { readonly type: 'approval'; readonly token: string; readonly subscriber: string; readonly allowance: bigint; readonly logIndex: number };

export interface CollectorReceiptLog extends ReceiptLog {
  readonly index?: number;
}

/**
 * The collector's events in a receipt's (or a block's) logs, in order: those `collector` emitted, and the
 * `Approval(owner, collector, value)` of any token (how the gateway sees a subscriber's approval, or its revocation
 * with value 0). Other logs are skipped.
 */
export function collectorEventsOf(logs: readonly CollectorReceiptLog[], collector: string): CollectorEvent[] {
  const want = getAddress(collector.toLowerCase());
  const out: CollectorEvent[] = [];
  logs.forEach((log, i) => {
    const logIndex = log.index ?? i;
    const from = getAddress(log.address.toLowerCase());
    if (from === want) {
      const parsed = iface.parseLog({ topics: [...log.topics], data: log.data });
      const a = parsed?.args;
      if (!parsed || !a) return;
      if (parsed.name === 'Charged') out.push({ type: 'charged', mandateId: a[0] as string, period: a[1] as bigint, amount: a[2] as bigint, logIndex });
      else if (parsed.name === 'ChargeFailed')
        out.push({
          type: 'charge_failed',
          mandateId: a[0] as string,
          period: a[1] as bigint,
          amount: a[2] as bigint,
          reason: chargeFailureReason(a[3] as bigint),
          logIndex,
        });
      else if (parsed.name === 'MandateAuthorized')
        out.push({
          type: 'authorized',
          mandateId: a[0] as string,
          terms: {
            subscriber: getAddress(a[1] as string),
            token: getAddress(a[2] as string),
            payee: getAddress(a[3] as string),
            perChargeCap: a[4] as bigint,
            perPeriodCap: a[5] as bigint,
            periodSeconds: Number(a[6] as bigint),
            start: Number(a[7] as bigint),
            salt: a[8] as bigint,
          },
          logIndex,
        });
      else if (parsed.name === 'MandateRevoked') out.push({ type: 'revoked', mandateId: a[0] as string, subscriber: getAddress(a[1] as string), logIndex });
      return;
    }
    const approval = erc20Iface.getEvent('Approval');
    if (log.topics[0] !== approval?.topicHash || log.topics.length !== 3) return;
    const parsed = erc20Iface.parseLog({ topics: [...log.topics], data: log.data });
    if (!parsed || getAddress(parsed.args[1] as string) !== want) return;
    out.push({ type: 'approval', token: from, subscriber: getAddress(parsed.args[0] as string), allowance: parsed.args[2] as bigint, logIndex });
  });
  return out;
}

/**
 * The `eth_getLogs` filters that find every log `collectorEventsOf` reads: the collector's own events, and the
 * `Approval` events of any token whose spender is the collector (topic 2). Add `fromBlock`/`toBlock` (and, for the
 * approvals, `address` to narrow them to the offered tokens).
 */
export function collectorLogFilters(collector: string): { address?: string; topics: (string | null)[] }[] {
  const address = getAddress(collector.toLowerCase());
  const approval = erc20Iface.getEvent('Approval')?.topicHash as string;
  return [{ address, topics: [] }, { topics: [approval, null, zeroPadValue(address, 32).toLowerCase()] }];
}

/** The outcome of each charge of a mined `chargeBatch`, in the batch's order (every charge emits one event). */
export type ChargeOutcome =
  | { readonly ok: true; readonly mandateId: string; readonly period: bigint; readonly amount: bigint }
  | { readonly ok: false; readonly mandateId: string; readonly period: bigint; readonly amount: bigint; readonly reason: ChargeFailureReason };

export function chargeOutcomesOf(logs: readonly CollectorReceiptLog[], collector: string): ChargeOutcome[] {
  const out: ChargeOutcome[] = [];
  for (const e of collectorEventsOf(logs, collector)) {
    if (e.type === 'charged') out.push({ ok: true, mandateId: e.mandateId, period: e.period, amount: e.amount });
    else if (e.type === 'charge_failed') out.push({ ok: false, mandateId: e.mandateId, period: e.period, amount: e.amount, reason: e.reason });
  }
  return out;
}

/** What the subscription use cases need of the collector (a port's implementation, without importing the port). */
export const collectorCalls = {
  setup: collectorSetup,
  mandateId,
  periodSeconds: mandatePeriodSeconds,
  salt: mandateSalt,
  authorizeWithSignature: authorizeWithSignatureData,
  charge: chargeData,
  chargeBatch: chargeBatchData,
  decodeChargeBatch: decodeChargeBatchData,
  events: collectorEventsOf,
  logFilters: collectorLogFilters,
  outcomes: chargeOutcomesOf,
  maxCharges: COLLECTOR_MAX_CHARGES,
} as const;
