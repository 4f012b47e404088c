/**
 * A pull subscription's mandate without a chain client (the subscriptions API ships no ethers): its id (the EIP-712
 * struct hash of its terms), its period and salt, and the call data and typed data of the subscriber's `setup`. Every
 * field of a mandate is a static ABI type, so its encodings are 32-byte words; test/unit/chain/evm-mandate.test.ts
 * keeps them equal to ethers' (shared/chain/evm/collector.ts) for any terms.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { toChecksumAddress } from '../../domain/addresses.js';

/** The terms the subscriber agrees to (EIP-712 `Mandate`). Amounts in the token's base units. */
export interface MandateTerms {
  readonly subscriber: string;
  readonly token: string;
  /** The gateway's address that receives the charges. */
  readonly payee: string;
  readonly perChargeCap: bigint;
  readonly perPeriodCap: bigint;
  /** Period k opens at `start + k * periodSeconds` (see `mandatePeriodSeconds`). */
  readonly periodSeconds: number;
  /** Unix seconds: when period 0 opens. */
  readonly start: number;
  /** The gateway's reference (e.g. from the subscription id, `mandateSalt`): equal terms, distinct mandates. */
  readonly salt: bigint;
}

export class InvalidMandateError extends RangeError {
  readonly code = 'INVALID_MANDATE';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMandateError';
  }
}

const UINT32_MAX = 2n ** 32n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const UINT128_MAX = 2n ** 128n - 1n;

function inRange(name: string, value: bigint, max: bigint, min = 0n): void {
  if (value < min || value > max) throw new InvalidMandateError(`${name} must be between ${min} and ${max}, not ${value}`);
}

const address = (name: string, value: string): string => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new InvalidMandateError(`${name} is not an address: ${value}`);
  return toChecksumAddress(value.toLowerCase());
};

/** The terms checked as the contract checks them, addresses checksummed. */
export function normalizeMandate(terms: MandateTerms): MandateTerms {
  inRange('perChargeCap', terms.perChargeCap, UINT128_MAX, 1n);
  inRange('perPeriodCap', terms.perPeriodCap, UINT128_MAX, terms.perChargeCap);
  if (!Number.isInteger(terms.periodSeconds) || !Number.isInteger(terms.start)) throw new InvalidMandateError('periodSeconds and start must be whole seconds');
  inRange('periodSeconds', BigInt(terms.periodSeconds), UINT32_MAX, 1n);
  inRange('start', BigInt(terms.start), UINT64_MAX);
  inRange('salt', terms.salt, UINT64_MAX);
  return {
    ...terms,
    subscriber: address('subscriber', terms.subscriber),
    token: address('token', terms.token),
    payee: address('payee', terms.payee),
  };
}

const keccakHex = (bytes: Uint8Array): string => `0x${bytesToHex(keccak_256(bytes))}`;

/** A 64-bit salt from the gateway's reference (e.g. a subscription id): the first 8 bytes of its keccak-256. */
export function mandateSalt(reference: string): bigint {
  return BigInt(keccakHex(utf8ToBytes(reference)).slice(0, 18));
}

const SECONDS_PER_DAY = 86_400;
/** The fewest days `count` consecutive months (or years) can last: periods on chain are never longer than the plan's. */
const MIN_DAYS_OF_MONTHS = [0, 28, 59, 89, 120, 150, 181, 212, 242, 273, 303, 334, 365];

/**
 * The mandate's `periodSeconds` for a plan's interval: the SHORTEST time `count` intervals can last (a month 28
 * days, three months 89, a year 365), so that a charge made when a cycle opens is never in a period already charged.
 */
export function mandatePeriodSeconds(interval: 'day' | 'week' | 'month' | 'year', count: number): number {
  if (!Number.isInteger(count) || count < 1) throw new InvalidMandateError(`interval_count must be a positive integer, not ${count}`);
  let days: number;
  if (interval === 'day') days = count;
  else if (interval === 'week') days = 7 * count;
  else if (interval === 'year') days = 365 * count;
  else days = 365 * Math.floor(count / 12) + (MIN_DAYS_OF_MONTHS[count % 12] ?? 0);
  const seconds = days * SECONDS_PER_DAY;
  if (seconds > Number(UINT32_MAX)) throw new InvalidMandateError(`an interval of ${count} ${interval}s is too long for a mandate`);
  return seconds;
}

export const MANDATE_TYPES = {
  Mandate: [
    { name: 'subscriber', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'payee', type: 'address' },
    { name: 'perChargeCap', type: 'uint128' },
    { name: 'perPeriodCap', type: 'uint128' },
    { name: 'periodSeconds', type: 'uint32' },
    { name: 'start', type: 'uint64' },
    { name: 'salt', type: 'uint64' },
  ],
};

const MANDATE_TYPE = `Mandate(${MANDATE_TYPES.Mandate.map((f) => `${f.type} ${f.name}`).join(',')})`;
const MANDATE_TYPEHASH = keccakHex(utf8ToBytes(MANDATE_TYPE));
const selector = (signature: string): string => keccakHex(utf8ToBytes(signature)).slice(0, 10);
const AUTHORIZE = selector('authorize((address,address,address,uint128,uint128,uint32,uint64,uint64))');
const APPROVE = selector('approve(address,uint256)');

/** One ABI word (32 bytes) of an unsigned integer or an address, as 64 hex digits. */
const word = (value: bigint | string | number): string => {
  const n = typeof value === 'string' ? BigInt(value) : BigInt(value);
  if (n < 0n || n >= 2n ** 256n) throw new RangeError(`not a uint256: ${n}`);
  return n.toString(16).padStart(64, '0');
};

const termWords = (m: MandateTerms): string =>
  [m.subscriber, m.token, m.payee, m.perChargeCap, m.perPeriodCap, m.periodSeconds, m.start, m.salt].map(word).join('');

const hexBytes = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));

/** The mandate's id: the EIP-712 struct hash of its terms (as the contract's `mandateId`). */
export function mandateId(terms: MandateTerms): string {
  const m = normalizeMandate(terms);
  return keccakHex(hexBytes(MANDATE_TYPEHASH.slice(2) + termWords(m)));
}

/** EIP-712 typed data of the terms, as `eth_signTypedData_v4` takes it (numbers as decimal strings). */
export interface MandateTypedData {
  readonly domain: { name: 'SubscriptionCollector'; version: '1'; chainId: number; verifyingContract: string };
  readonly types: typeof MANDATE_TYPES;
  readonly primaryType: 'Mandate';
  readonly message: Record<string, string | number>;
}

export function mandateTypedData(terms: MandateTerms, chain: { chainId: number; collector: string }): MandateTypedData {
  const m = normalizeMandate(terms);
  return {
    domain: { name: 'SubscriptionCollector', version: '1', chainId: chain.chainId, verifyingContract: address('collector', chain.collector) },
    types: MANDATE_TYPES,
    primaryType: 'Mandate',
    message: {
      subscriber: m.subscriber,
      token: m.token,
      payee: m.payee,
      perChargeCap: m.perChargeCap.toString(),
      perPeriodCap: m.perPeriodCap.toString(),
      periodSeconds: m.periodSeconds,
      start: m.start,
      salt: m.salt.toString(),
    },
  };
}

/** `authorize(terms)` call data (the subscriber sends it). */
export function authorizeData(terms: MandateTerms): string {
  return AUTHORIZE + termWords(normalizeMandate(terms));
}

/** `approve(spender, amount)` call data of an ERC-20. */
export function approveData(spender: string, amount: bigint): string {
  return APPROVE + word(address('spender', spender)) + word(amount);
}

/** A transaction for the subscriber's wallet. */
export interface WalletCall {
  readonly to: string;
  readonly data: string;
}

/** What a pull subscription's `setup` carries: everything the subscriber's wallet needs, and nothing to trust blindly. */
export interface CollectorSetup extends Omit<MandateTerms, 'subscriber'> {
  readonly chainId: number;
  readonly collector: string;
  readonly mandateId: string;
  /** Base units the subscriber approves (bounds the total over all periods). */
  readonly allowance: bigint;
  /** 1. `token.approve(collector, allowance)`, sent by the subscriber. */
  readonly approve: WalletCall;
  /** 2a. `collector.authorize(terms)`, sent by the subscriber ... */
  readonly authorize: WalletCall;
  /** 2b. ... or these terms signed (`eth_signTypedData_v4`) and given to the gateway, which submits them. */
  readonly typedData: MandateTypedData;
}

export function collectorSetup(input: { chainId: number; collector: string; terms: MandateTerms; allowance: bigint }): CollectorSetup {
  const m = normalizeMandate(input.terms);
  inRange('allowance', input.allowance, 2n ** 256n - 1n, m.perChargeCap);
  const collector = address('collector', input.collector);
  const { subscriber: _subscriber, ...terms } = m;
  return {
    ...terms,
    chainId: input.chainId,
    collector,
    mandateId: mandateId(m),
    allowance: input.allowance,
    approve: { to: m.token, data: approveData(collector, input.allowance) },
    authorize: { to: collector, data: authorizeData(m) },
    typedData: mandateTypedData(m, { chainId: input.chainId, collector }),
  };
}
