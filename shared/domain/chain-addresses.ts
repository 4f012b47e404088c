import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';

/**
 * Addresses in the forms chains use them: a TRON address in its spellings (Base58Check, 41-prefixed hex, the TVM's
 * 20-byte hex), and the form deposits are matched in. Pure codecs; the withdrawal address check of every family is
 * shared/domain/addresses.ts.
 */

const base58checkSha256 = createBase58check(sha256);

export const TRON_ADDRESS_PREFIX = 0x41;

/**
 * The 21-byte form of a TRON address given as Base58Check (`T...`), hex with the 41 prefix (`41...`, `0x41...`,
 * 42 hex digits), or a 20-byte EVM-style hex (`0x` + 40 hex digits, as TVM logs and ABI values show it).
 */
export function tronAddressToBytes(address: string): Uint8Array {
  let bytes: Uint8Array;
  if (/^(0x)?41[0-9a-fA-F]{40}$/.test(address)) {
    bytes = hexToBytes(address.replace(/^0x/, ''));
  } else if (/^0x[0-9a-fA-F]{40}$/.test(address)) {
    bytes = concatBytes(Uint8Array.of(TRON_ADDRESS_PREFIX), hexToBytes(address.slice(2)));
  } else {
    try {
      bytes = base58checkSha256.decode(address);
    } catch (error) {
      throw new TypeError(`Not a TRON address: ${address}`, { cause: error });
    }
  }
  if (bytes.length !== 21 || bytes[0] !== TRON_ADDRESS_PREFIX) throw new TypeError(`Not a TRON address: ${address}`);
  return bytes;
}

/** Base58Check (`T...`) of a 21-byte TRON address. */
export function tronAddressFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 21 || bytes[0] !== TRON_ADDRESS_PREFIX) throw new TypeError('A TRON address is 0x41 + 20 bytes');
  return base58checkSha256.encode(bytes);
}

/** Base58Check form of any accepted TRON address spelling. */
export function toTronBase58(address: string): string {
  return tronAddressFromBytes(tronAddressToBytes(address));
}

/** The 20-byte body as 0x-hex (the form used inside the TVM: ABI arguments, init code, logs). */
export function tronAddressToEvmHex(address: string): string {
  return `0x${bytesToHex(tronAddressToBytes(address).subarray(1))}`;
}

/**
 * An address as chain logs and the TVM show it, the form deposits are matched in: EVM hex, lowercase; a TRON
 * base58 address as its 20-byte 0x-hex body.
 */
export const chainAddressForm = (family: string, address: string): string =>
  (family === 'tron' && !address.startsWith('0x') ? tronAddressToEvmHex(address) : address).toLowerCase();
