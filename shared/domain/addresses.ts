import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base32nopad, base58, base58xrp, bech32, bech32m, createBase58check } from '@scure/base';
import type { BtcNetwork } from './bitcoin.js';
import { btcExpectedFormat, checkBtcAddressOn, decodeBtcAddress } from './bitcoin.js';

/**
 * Pure address codecs of every chain family the withdrawal address check knows (spec 4.4). No chain SDK:
 * `@scure/base` decodes, `@noble/hashes` checks checksums. Each check answers valid (with an optional
 * warning) or invalid with a message for `error_message`.
 */

export const ADDRESS_TYPES = ['EVM', 'TRX', 'BTC', 'SOL', 'LTC', 'DOGE', 'XRP', 'XLM', 'ADA'] as const;
export type AddressType = (typeof ADDRESS_TYPES)[number];

/** Chains that need a memo (destination tag) besides the address. */
export const MEMO_REQUIRED: ReadonlySet<AddressType> = new Set(['XRP', 'XLM']);

export type AddressCheck = { readonly valid: true; readonly warning: string | null } | { readonly valid: false; readonly error: string };

const ok = (warning: string | null = null): AddressCheck => ({ valid: true, warning });
const bad = (error: string): AddressCheck => ({ valid: false, error });

const base58checkSha256 = createBase58check(sha256);

const BLOCKCHAIN_TYPES: Readonly<Record<string, AddressType>> = {
  ETH: 'EVM',
  ETHEREUM: 'EVM',
  ERC20: 'EVM',
  BSC: 'EVM',
  BEP20: 'EVM',
  BNB: 'EVM',
  POLYGON: 'EVM',
  MATIC: 'EVM',
  ARB: 'EVM',
  ARBITRUM: 'EVM',
  BASE: 'EVM',
  OPTIMISM: 'EVM',
  OP: 'EVM',
  AVAX: 'EVM',
  AVALANCHE: 'EVM',
  EVM: 'EVM',
  TRX: 'TRX',
  TRON: 'TRX',
  TRC20: 'TRX',
  BTC: 'BTC',
  BITCOIN: 'BTC',
  SOL: 'SOL',
  SOLANA: 'SOL',
  LTC: 'LTC',
  LITECOIN: 'LTC',
  DOGE: 'DOGE',
  DOGECOIN: 'DOGE',
  XRP: 'XRP',
  RIPPLE: 'XRP',
  XLM: 'XLM',
  STELLAR: 'XLM',
  ADA: 'ADA',
  CARDANO: 'ADA',
};

/** The address type of a blockchain name or a `type` value (case-insensitive), or undefined. */
export function addressTypeOf(name: string): AddressType | undefined {
  return BLOCKCHAIN_TYPES[name.trim().toUpperCase()];
}

/** The address format a type expects, for error details. */
export const EXPECTED_FORMAT: Readonly<Record<AddressType, string>> = {
  EVM: '0x followed by 40 hexadecimal characters (EIP-55 checksum when mixed case)',
  TRX: 'base58check address starting with T (34 characters)',
  BTC: 'P2PKH (1...), P2SH (3...), bech32 (bc1q...) or taproot (bc1p...) address',
  SOL: 'base58 public key of 32 bytes',
  LTC: 'base58check (L..., M..., 3...) or bech32 (ltc1...) address',
  DOGE: 'base58check address starting with D, A or 9',
  XRP: 'classic address starting with r',
  XLM: 'StrKey account id starting with G (56 characters)',
  ADA: 'Shelley (addr1...) or Byron base58 address',
};

// EVM.

export const ZERO_EVM_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The EIP-55 mixed-case checksum form of a 20-byte hex address. */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i] as string, 16) >= 8 ? (lower[i] as string).toUpperCase() : lower[i];
  return out;
}

export function checkEvmAddress(address: string): AddressCheck {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return bad('An EVM address is 0x followed by 40 hexadecimal characters.');
  const body = address.slice(2);
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixed && toChecksumAddress(address) !== address) return bad('The address fails its EIP-55 checksum (mixed case).');
  if (body.toLowerCase() === ZERO_EVM_ADDRESS.slice(2)) return ok('This is the zero address: funds sent to it are lost.');
  return ok();
}

// Base58check families (TRON, BTC, LTC, DOGE).

function base58checkPayload(address: string): Uint8Array | null {
  try {
    return base58checkSha256.decode(address);
  } catch {
    return null;
  }
}

export function checkTronAddress(address: string): AddressCheck {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return bad('A TRON address is 34 base58 characters starting with T.');
  const payload = base58checkPayload(address);
  if (!payload) return bad('The address fails its base58check checksum.');
  if (payload.length !== 21 || payload[0] !== 0x41) return bad('A TRON address carries 21 bytes starting with 0x41.');
  return ok();
}

interface UtxoRules {
  readonly name: string;
  readonly versions: readonly number[];
  readonly hrps: readonly string[];
}

const UTXO: Readonly<Record<'LTC' | 'DOGE', UtxoRules>> = {
  // L (0x30), M (0x32), legacy 3 (0x05).
  LTC: { name: 'Litecoin', versions: [0x30, 0x32, 0x05], hrps: ['ltc'] },
  // D (0x1e), 9/A (0x16).
  DOGE: { name: 'Dogecoin', versions: [0x1e, 0x16], hrps: [] },
};

function checkSegwit(address: string, hrps: readonly string[]): AddressCheck | null {
  const lower = address.toLowerCase();
  const hrp = hrps.find((h) => lower.startsWith(`${h}1`));
  if (hrp === undefined) return null;
  if (address !== lower && address !== address.toUpperCase()) return bad('A bech32 address is not mixed case.');
  let decoded: { prefix: string; words: number[] };
  let variant: 'bech32' | 'bech32m' = 'bech32';
  try {
    decoded = bech32.decode(lower as `${string}1${string}`);
  } catch {
    try {
      decoded = bech32m.decode(lower as `${string}1${string}`);
      variant = 'bech32m';
    } catch {
      return bad('The address fails its bech32 checksum.');
    }
  }
  const [version, ...rest] = decoded.words;
  if (version === undefined || version > 16) return bad('Unknown witness version.');
  let program: Uint8Array;
  try {
    program = bech32.fromWords(rest);
  } catch {
    return bad('Malformed witness program.');
  }
  if (version === 0) {
    if (variant !== 'bech32') return bad('A version 0 witness address uses bech32, not bech32m.');
    if (program.length !== 20 && program.length !== 32) return bad('A version 0 witness program is 20 or 32 bytes.');
    return ok();
  }
  if (variant !== 'bech32m') return bad('A version 1+ witness address uses bech32m.');
  if (program.length < 2 || program.length > 40) return bad('A witness program is 2 to 40 bytes.');
  if (version === 1 && program.length !== 32) return bad('A taproot program is 32 bytes.');
  return ok();
}

function checkUtxo(kind: 'LTC' | 'DOGE', address: string): AddressCheck {
  const rules = UTXO[kind];
  const segwit = checkSegwit(address, rules.hrps);
  if (segwit) return segwit;
  if (!/^[1-9A-HJ-NP-Za-km-z]{25,35}$/.test(address)) return bad(`Not a ${rules.name} address.`);
  const payload = base58checkPayload(address);
  if (!payload) return bad('The address fails its base58check checksum.');
  if (payload.length !== 21 || !rules.versions.includes(payload[0] as number)) return bad(`Not a ${rules.name} address (version byte).`);
  return ok();
}

/**
 * Bitcoin (shared/domain/bitcoin.ts): every standard output type (P2PKH, P2SH, P2WPKH, P2WSH, P2TR) with its
 * checksum and program length; with `network` (the deployment's), only that network's addresses.
 */
export function checkBtcAddress(address: string, network?: BtcNetwork): AddressCheck {
  const decoded = network === undefined ? decodeBtcAddress(address) : checkBtcAddressOn(address, network);
  return decoded.valid ? ok() : bad(decoded.error);
}

// Solana.

export function checkSolAddress(address: string): AddressCheck {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return bad('A Solana address is 32 to 44 base58 characters.');
  try {
    if (base58.decode(address).length === 32) return ok();
  } catch {
    // fall through
  }
  return bad('A Solana address decodes to 32 bytes.');
}

// XRP: base58 with the ripple alphabet, double-sha256 checksum, version 0x00.

export function checkXrpAddress(address: string): AddressCheck {
  if (!/^r[1-9A-HJ-NP-Za-km-z]{24,34}$/.test(address)) return bad('An XRP address starts with r.');
  let bytes: Uint8Array;
  try {
    bytes = base58xrp.decode(address);
  } catch {
    return bad('Not an XRP address.');
  }
  if (bytes.length !== 25 || bytes[0] !== 0x00) return bad('Not an XRP account address.');
  const sum = sha256(sha256(bytes.subarray(0, 21)));
  for (let i = 0; i < 4; i++) if (sum[i] !== bytes[21 + i]) return bad('The address fails its checksum.');
  return ok();
}

// Stellar StrKey: base32 of version byte (6 << 3) + 32-byte key + CRC16-XModem (little endian).

function crc16xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

export function checkXlmAddress(address: string): AddressCheck {
  if (!/^G[A-Z2-7]{55}$/.test(address)) return bad('A Stellar account id is 56 base32 characters starting with G.');
  let bytes: Uint8Array;
  try {
    bytes = base32nopad.decode(address);
  } catch {
    return bad('Not a Stellar address.');
  }
  if (bytes.length !== 35 || bytes[0] !== 6 << 3) return bad('Not a Stellar account id.');
  const crc = crc16xmodem(bytes.subarray(0, 33));
  if (bytes[33] !== (crc & 0xff) || bytes[34] !== crc >> 8) return bad('The address fails its checksum.');
  return ok();
}

// Cardano: Shelley bech32 (`addr1`), or Byron base58.

export function checkAdaAddress(address: string): AddressCheck {
  if (address.startsWith('addr1')) {
    try {
      bech32.decode(address as `${string}1${string}`, 120);
      return ok();
    } catch {
      return bad('The address fails its bech32 checksum.');
    }
  }
  if (/^(Ae2|DdzFF)[1-9A-HJ-NP-Za-km-z]{50,120}$/.test(address)) {
    try {
      base58.decode(address);
      return ok();
    } catch {
      // fall through
    }
  }
  return bad('A Cardano address starts with addr1 (Shelley) or is a Byron base58 address.');
}

/** What an address check knows of the deployment: the Bitcoin network it pays on (without it, any). */
export interface AddressContext {
  readonly btcNetwork?: BtcNetwork | undefined;
}

const CHECKS: Readonly<Record<AddressType, (address: string, context: AddressContext) => AddressCheck>> = {
  EVM: checkEvmAddress,
  TRX: checkTronAddress,
  BTC: (a, context) => checkBtcAddress(a, context.btcNetwork),
  SOL: checkSolAddress,
  LTC: (a) => checkUtxo('LTC', a),
  DOGE: (a) => checkUtxo('DOGE', a),
  XRP: checkXrpAddress,
  XLM: checkXlmAddress,
  ADA: checkAdaAddress,
};

function checkMemo(type: AddressType, memo: string | undefined): AddressCheck {
  if (!MEMO_REQUIRED.has(type)) return ok();
  if (memo === undefined || memo.trim() === '') return bad(`A memo (destination tag) is required for ${type}.`);
  if (type === 'XRP' && (!/^\d{1,10}$/.test(memo) || BigInt(memo) > 4294967295n)) return bad('An XRP destination tag is a whole number up to 4294967295.');
  if (type === 'XLM' && utf8ToBytes(memo).length > 28) return bad('A Stellar text memo is at most 28 bytes.');
  return ok();
}

/** The address format a type expects on this deployment (a Bitcoin address: of its network). */
export function expectedFormat(type: AddressType, context: AddressContext = {}): string {
  return type === 'BTC' && context.btcNetwork !== undefined ? btcExpectedFormat(context.btcNetwork) : EXPECTED_FORMAT[type];
}

/** Checks an address (and the memo where the chain requires one) for a type. */
export function checkAddress(type: AddressType, address: string, memo?: string, context: AddressContext = {}): AddressCheck {
  const result = CHECKS[type](address.trim() === address ? address : '', context);
  if (!result.valid) return result;
  const memoCheck = checkMemo(type, memo);
  return memoCheck.valid ? result : memoCheck;
}
